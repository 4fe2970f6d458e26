/* csv.c - MiniMalloc's interval CSV: id,lower,upper,size[,offset]. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/memplan.h"

static bool field(const char **p, const char *end, const char **s, size_t *n) {
  *s = *p;
  while (*p < end && **p != ',' && **p != '\n' && **p != '\r') (*p)++;
  *n = (size_t)(*p - *s);
  return *n > 0;
}

static bool number(const char *s, size_t n, int64_t *out) {
  char buf[32];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *e;
  errno = 0;
  long long v = strtoll(buf, &e, 10);
  if (*e || errno) return false;
  *out = v;
  return true;
}

tir_interval *tir_plan_read_csv(const char *text, size_t len, int *n, char ***ids, tir_diag *d) {
  const char *p = text, *end = text + len;
  *n = 0;
  *ids = NULL;
  const char *nl = memchr(p, '\n', len);
  size_t hl = nl ? (size_t)(nl - p) : len;
  if (hl && p[hl - 1] == '\r') hl--;
  if (hl < 19 || strncmp(p, "id,lower,upper,size", 19) || (hl > 19 && strncmp(p + 19, ",offset", hl - 19))) {
    tir_error(d, ((tir_span){1, 1}), "expected the header 'id,lower,upper,size'");
    return NULL;
  }
  p = nl ? nl + 1 : end;
  int cap = 64, line = 1;
  tir_interval *iv = malloc(sizeof *iv * (size_t)cap);
  char **names = malloc(sizeof *names * (size_t)cap);
  if (!iv || !names) abort();
  while (p < end) {
    line++;
    const char *ls = p;
    if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) { /* blank line */
      p = memchr(p, '\n', (size_t)(end - p)) + 1;
      continue;
    }
    const char *s[4];
    size_t sl[4];
    int64_t v[3];
    static const char *const what[] = {"an id", "lower", "upper", "size"};
    for (int k = 0; k < 4; k++) {
      if (k && (p >= end || *p != ',')) {
        tir_error(d, ((tir_span){line, (int)(p - ls) + 1}), "missing column '%s'", what[k]);
        goto fail;
      }
      if (k) p++;
      if (!field(&p, end, &s[k], &sl[k])) {
        tir_error(d, ((tir_span){line, (int)(p - ls) + 1}), "empty %s", what[k]);
        goto fail;
      }
      if (k && !number(s[k], sl[k], &v[k - 1])) {
        tir_error(d, ((tir_span){line, (int)(s[k] - ls) + 1}), "%s is not an integer: '%.*s'", what[k], (int)sl[k], s[k]);
        goto fail;
      }
    }
    if (p < end && *p == ',') { /* an offset column: ignored on input */
      const char *os;
      size_t on;
      p++;
      field(&p, end, &os, &on);
    }
    if (v[2] <= 0) {
      tir_error(d, ((tir_span){line, (int)(s[3] - ls) + 1}), "size must be positive, got %lld", (long long)v[2]);
      goto fail;
    }
    if (v[1] <= v[0]) {
      tir_error(d, ((tir_span){line, (int)(s[2] - ls) + 1}), "empty live range: upper %lld <= lower %lld", (long long)v[1],
                (long long)v[0]);
      goto fail;
    }
    if (*n == cap) {
      cap *= 2;
      iv = realloc(iv, sizeof *iv * (size_t)cap);
      names = realloc(names, sizeof *names * (size_t)cap);
      if (!iv || !names) abort();
    }
    iv[*n] = (tir_interval){v[0], v[1], v[2], 0};
    names[*n] = strndup(s[0], sl[0]);
    (*n)++;
    while (p < end && *p != '\n') {
      if (*p != '\r') {
        tir_error(d, ((tir_span){line, (int)(p - ls) + 1}), "unexpected text after the columns");
        goto fail;
      }
      p++;
    }
    if (p < end) p++;
  }
  *ids = names;
  return iv;
fail:
  for (int i = 0; i < *n; i++) free(names[i]);
  free(names);
  free(iv);
  *n = 0;
  return NULL;
}

char *tir_plan_write_csv(const tir_interval *iv, char *const *ids, int n) {
  size_t cap = 64 + (size_t)n * 96, len = 0;
  char *out = malloc(cap);
  if (!out) abort();
  len += (size_t)snprintf(out, cap, "id,lower,upper,size,offset\n");
  for (int i = 0; i < n; i++) {
    size_t need = strlen(ids[i]) + 96;
    if (len + need > cap) {
      cap = (cap + need) * 2;
      out = realloc(out, cap);
      if (!out) abort();
    }
    len += (size_t)snprintf(out + len, cap - len, "%s,%lld,%lld,%lld,%lld\n", ids[i], (long long)iv[i].lower,
                            (long long)iv[i].upper, (long long)iv[i].size, (long long)iv[i].offset);
  }
  return out;
}
