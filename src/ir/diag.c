/* diag.c - diagnostic lists and their rendering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/diag.h"

void tir_diag_init(tir_diag *d) { memset(d, 0, sizeof *d); }

void tir_diag_clear(tir_diag *d) {
  for (int i = 0; i < d->n; i++) free(d->items[i].msg);
  d->n = 0;
  d->nerrors = 0;
}

void tir_diag_free(tir_diag *d) {
  tir_diag_clear(d);
  free(d->items);
  memset(d, 0, sizeof *d);
}

void tir_diag_vadd(tir_diag *d, tir_severity sev, tir_span sp, const char *fmt, va_list ap) {
  if (!d) return;
  if (d->n == d->cap) {
    int cap = d->cap ? d->cap * 2 : 8;
    tir_diag_entry *p = realloc(d->items, sizeof *p * (size_t)cap);
    if (!p) abort();
    d->items = p;
    d->cap = cap;
  }
  va_list ap2;
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *msg = malloc((size_t)(len < 0 ? 0 : len) + 1);
  if (!msg) abort();
  vsnprintf(msg, (size_t)(len < 0 ? 0 : len) + 1, fmt, ap);
  d->items[d->n++] = (tir_diag_entry){sev, sp, msg};
  if (sev == TIR_SEV_ERROR) d->nerrors++;
}

void tir_diag_add(tir_diag *d, tir_severity sev, tir_span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tir_diag_vadd(d, sev, sp, fmt, ap);
  va_end(ap);
}

bool tir_diag_has_errors(const tir_diag *d) { return d && d->nerrors > 0; }

typedef struct { char *p; size_t n, cap; } sbuf;
static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) abort();
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid */
static size_t utf8_seq(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned cp, min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) len = 2, min = 0x80, cp = c & 0x1Fu;
  else if ((c & 0xF0) == 0xE0) len = 3, min = 0x800, cp = c & 0x0Fu;
  else if ((c & 0xF8) == 0xF0) len = 4, min = 0x10000, cp = c & 0x07u;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp >= 0x80 && cp <= 0x9F) return 0; /* C1 control characters */
  return len;
}

/* a bidirectional control character (U+061C, U+200E-200F, U+202A-202E,
 * U+2066-2069): the UTF-8 sequence of l bytes at s; shown escaped, since it
 * reorders the text a terminal shows around it */
static bool bidi_seq(const unsigned char *s, size_t l) {
  if (l == 2) return s[0] == 0xD8 && s[1] == 0x9C;
  if (l != 3 || s[0] != 0xE2) return false;
  if (s[1] == 0x80) return s[2] == 0x8E || s[2] == 0x8F || (s[2] >= 0xAA && s[2] <= 0xAE);
  return s[1] == 0x81 && s[2] >= 0xA6 && s[2] <= 0xA9;
}

/* a message: valid UTF-8 text as is, tabs kept; a newline as \n, other
 * control characters as \xHH, bidirectional controls as \uHHHH, invalid
 * bytes as '?' (a message quotes names and strings of the input) */
static void put_message(sbuf *b, const char *msg) {
  const unsigned char *u = (const unsigned char *)msg;
  size_t n = strlen(msg);
  for (size_t k = 0; k < n;) {
    size_t l = utf8_seq(u + k, n - k);
    char esc[16];
    if (!l) {
      sb_put(b, "?", 1);
      l = 1;
    } else if (l == 1 && u[k] == '\n') {
      sb_puts(b, "\\n");
    } else if (l == 1 && ((u[k] < 0x20 && u[k] != '\t') || u[k] == 0x7f)) {
      snprintf(esc, sizeof esc, "\\x%02x", u[k]);
      sb_puts(b, esc);
    } else if (bidi_seq(u + k, l)) {
      unsigned cp = l == 2 ? 0x061C : ((unsigned)(u[k] & 0x0F) << 12 | (unsigned)(u[k + 1] & 0x3F) << 6 | (u[k + 2] & 0x3F));
      snprintf(esc, sizeof esc, "\\u%04x", cp);
      sb_puts(b, esc);
    } else {
      sb_put(b, msg + k, l);
    }
    k += l;
  }
}

/* the source line [pos, end) as shown under a message: valid UTF-8 text as
 * is, tabs kept, control characters, bidirectional controls and invalid
 * bytes as '?'; then a caret
 * under the byte column col, one space per character shown before it */
static void echo_line(sbuf *b, const char *src, size_t pos, size_t end, int col) {
  const unsigned char *u = (const unsigned char *)src;
  size_t caret_at = pos + (size_t)(col > 0 ? col - 1 : 0);
  if (end > pos && src[end - 1] == '\r') end--; /* CRLF line ends */
  sbuf pad = {0};
  sb_puts(&pad, "");
  sb_puts(b, "  ");
  for (size_t k = pos; k < end;) {
    size_t l = utf8_seq(u + k, end - k);
    bool shown = l && ((l > 1 && !bidi_seq(u + k, l)) || (l == 1 && u[k] >= 0x20 && u[k] != 0x7f) || u[k] == '\t');
    if (!shown && !(l > 1)) l = 1; /* an invalid byte; a bidi control is one '?' for its bytes */
    if (shown) sb_put(b, src + k, l);
    else sb_put(b, "?", 1);
    if (k < caret_at) sb_put(&pad, u[k] == '\t' ? "\t" : " ", 1);
    k += l;
  }
  sb_puts(b, "\n  ");
  sb_puts(b, pad.p);
  sb_puts(b, "^\n");
  free(pad.p);
}

/* a line longer than ECHO_MAX bytes is shown as the ECHO_MAX bytes around
 * the column (cut at UTF-8 character starts), col made relative to it */
#define ECHO_MAX 160
static bool utf8_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }
static void clip_line(const char *src, size_t *pos, size_t *end, int *col) {
  if (*end - *pos <= ECHO_MAX) return;
  size_t caret = *pos + (size_t)(*col > 0 ? *col - 1 : 0);
  if (caret > *end) caret = *end;
  size_t from = caret > *pos + ECHO_MAX / 2 ? caret - ECHO_MAX / 2 : *pos;
  size_t to = from + ECHO_MAX < *end ? from + ECHO_MAX : *end;
  while (from > *pos && from < caret && utf8_cont(src[from])) from++;
  while (to < *end && to > from && utf8_cont(src[to])) to--;
  *col = (int)(caret - from) + 1;
  *pos = from;
  *end = to;
}

char *tir_diag_format(const tir_diag *d, const char *filename, const char *src, size_t src_len) {
  return tir_diag_format_ex(d, filename, src, src_len, NULL);
}

#define BOLD "\033[1m"
#define RESET "\033[0m"

char *tir_diag_format_ex(const tir_diag *d, const char *filename, const char *src, size_t src_len,
                         const tir_diag_format_opts *o) {
  sbuf b = {0};
  sb_puts(&b, "");
  static const char *sevs[] = {"error", "warning", "note"};
  static const char *colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
  bool color = o && o->color;
  int limit = o && o->error_limit > 0 ? o->error_limit : 0, errors = 0, hidden = 0;
  /* where each line starts, found once as far as needed (a scan from the
   * start for every diagnostic was quadratic: 1,000 warnings on a 21,000-line
   * program took 0.4 s) */
  size_t *starts = NULL;
  int nstarts = 0, capstarts = 0;
  size_t scanned = 0;
  for (int i = 0; d && i < d->n; i++) {
    const tir_diag_entry *e = &d->items[i];
    if (e->sev == TIR_SEV_ERROR && limit && errors >= limit) {
      hidden++;
      continue;
    }
    if (e->sev == TIR_SEV_ERROR) errors++;
    char head[512];
    if (e->span.line > 0)
      snprintf(head, sizeof head, "%s:%d:%d:", filename ? filename : "<input>", e->span.line,
               e->span.col > 0 ? e->span.col : 1);
    else
      snprintf(head, sizeof head, "%s:", filename ? filename : "<input>");
    if (color) sb_puts(&b, BOLD);
    sb_puts(&b, head);
    sb_puts(&b, " ");
    if (color) sb_puts(&b, colors[e->sev]);
    sb_puts(&b, sevs[e->sev]);
    sb_puts(&b, ": ");
    if (color) sb_puts(&b, RESET BOLD);
    put_message(&b, e->msg);
    if (color) sb_puts(&b, RESET);
    sb_puts(&b, "\n");
    if (!src || e->span.line <= 0) continue;
    /* find the line */
    while (nstarts < e->span.line && scanned <= src_len) {
      if (nstarts == capstarts) {
        capstarts = capstarts ? 2 * capstarts : 1024;
        starts = realloc(starts, sizeof *starts * (size_t)capstarts);
        if (!starts) abort();
      }
      starts[nstarts++] = scanned;
      const char *nl = scanned < src_len ? memchr(src + scanned, '\n', src_len - scanned) : NULL;
      scanned = nl ? (size_t)(nl - src) + 1 : src_len + 1;
    }
    if (e->span.line > nstarts) continue;
    size_t pos = starts[e->span.line - 1];
    if (pos > src_len) continue;
    size_t end = pos;
    while (end < src_len && src[end] != '\n') end++;
    int col = e->span.col;
    clip_line(src, &pos, &end, &col);
    size_t at = b.n;
    echo_line(&b, src, pos, end, col);
    if (color) { /* the caret in green */
      char *caret = strrchr(b.p + at, '^');
      if (caret) {
        size_t k = (size_t)(caret - b.p);
        b.n = k;
        sb_puts(&b, "\033[1;32m^" RESET "\n");
      }
    }
  }
  free(starts);
  if (hidden) {
    char tail[160];
    snprintf(tail, sizeof tail, "%s: note: %d more error%s not shown (error limit %d)\n",
             filename ? filename : "<input>", hidden, hidden == 1 ? "" : "s", limit);
    sb_puts(&b, tail);
  }
  return b.p;
}

/* Levenshtein distance, capped: two rows of at most 64 + 1 entries */
static int edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 1 << 20;
  int prev[65], cur[65];
  for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      int del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, sizeof(int) * (lb + 1));
  }
  return prev[lb];
}

const char *tir_suggest(const char *word, const char *const *cands, int n) {
  const char *best = NULL;
  int bestd = 1 << 20;
  for (int i = 0; n < 0 ? cands[i] != NULL : i < n; i++) {
    int d = edit_distance(word, cands[i]);
    if (d < bestd) bestd = d, best = cands[i];
  }
  int len = (int)strlen(word), limit = len < 4 ? 1 : len / 3 + 1;
  return best && bestd <= limit && bestd > 0 ? best : NULL;
}
