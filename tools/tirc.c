/* tirc.c - the command-line driver: flags in, library calls, exit codes out.
 *
 *   tirc [--passes=a,b,c] [--emit=tir|c|cuda] [-o FILE] FILE
 *
 * Exit status: 0 success, 1 an error in the input, 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/tir.h"

typedef struct options {
  const char *input;
  const char *output;
  const char *passes;
  const char *emit;
  const char *target; /* for --emit=metadata*: c or cuda */
  const char *print_after;
  tir_dialect dialect;
  bool print_after_all, time_passes, verify_each, list_passes;
} options;

static void usage(FILE *f) {
  fputs("usage: tirc [options] FILE      (FILE '-' reads stdin)\n"
        "\n"
        "Reads a TVMScript TIR program, runs passes on it, and prints it as\n"
        "TVMScript, C or CUDA.\n"
        "\n"
        "options:\n"
        "  --passes=a,b,c      run these passes in order (names or aliases, or a\n"
        "                      named pipeline such as 'default'); see --list-passes\n"
        "  --emit=tir|c|cuda|metadata|metadata-text\n"
        "                      output kind (default tir); c and cuda run the\n"
        "                      'default' pipeline unless --passes is given;\n"
        "                      metadata (JSON) and metadata-text describe the\n"
        "                      code that --emit=TARGET prints (docs/aot-metadata.md)\n"
        "  --target=c|cuda     the code --emit=metadata describes (default c)\n"
        "  --dialect=tirx|tir  TVMScript spelling to print (default tirx)\n"
        "  -o FILE             write the output to FILE instead of stdout\n"
        "  --list-passes       list the known passes and pipelines\n"
        "  --print-after-all   print the IR to stderr after every pass\n"
        "  --print-after=NAME  print the IR to stderr after pass NAME\n"
        "  --time-passes       print a table of time spent per pass to stderr\n"
        "  --verify-each       verify the IR after each pass (default)\n"
        "  --no-verify-each    do not verify the IR after each pass\n"
        "  --help              show this help\n"
        "  --version           show the version\n",
        f);
}

static const char *flag_value(const char *arg, const char *name) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=') return arg + n + 1;
  return NULL;
}

/* returns -1 to continue, or an exit status */
static int parse_args(int argc, char **argv, options *o) {
  o->verify_each = true;
  o->emit = "tir";
  o->dialect = TIR_DIALECT_TIRX;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("tirc %s\n", TIR_VERSION);
      return 0;
    } else if ((v = flag_value(a, "--passes"))) {
      o->passes = v;
    } else if ((v = flag_value(a, "--emit"))) {
      if (strcmp(v, "tir") && strcmp(v, "c") && strcmp(v, "cuda") && strcmp(v, "metadata") &&
          strcmp(v, "metadata-text")) {
        fprintf(stderr, "tirc: error: unknown --emit kind '%s' (expected tir, c, cuda, metadata or metadata-text)\n", v);
        return 2;
      }
      o->emit = v;
    } else if ((v = flag_value(a, "--target"))) {
      if (strcmp(v, "c") && strcmp(v, "cuda")) {
        fprintf(stderr, "tirc: error: unknown --target '%s' (expected c or cuda)\n", v);
        return 2;
      }
      o->target = v;
    } else if ((v = flag_value(a, "--dialect"))) {
      if (!strcmp(v, "tirx")) o->dialect = TIR_DIALECT_TIRX;
      else if (!strcmp(v, "tir")) o->dialect = TIR_DIALECT_TIR;
      else {
        fprintf(stderr, "tirc: error: unknown --dialect '%s' (expected tirx or tir)\n", v);
        return 2;
      }
    } else if ((v = flag_value(a, "--print-after"))) {
      o->print_after = v;
    } else if (!strcmp(a, "--print-after-all")) {
      o->print_after_all = true;
    } else if (!strcmp(a, "--time-passes")) {
      o->time_passes = true;
    } else if (!strcmp(a, "--verify-each")) {
      o->verify_each = true;
    } else if (!strcmp(a, "--no-verify-each")) {
      o->verify_each = false;
    } else if (!strcmp(a, "--list-passes")) {
      o->list_passes = true;
    } else if (!strcmp(a, "-o")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "tirc: error: -o needs a file name\n");
        return 2;
      }
      o->output = argv[++i];
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "tirc: error: unknown option '%s' (see tirc --help)\n", a);
      return 2;
    } else {
      if (o->input) {
        fprintf(stderr, "tirc: error: more than one input file ('%s' and '%s')\n", o->input, a);
        return 2;
      }
      o->input = a;
    }
  }
  if (o->list_passes) return -1;
  if (!o->input) {
    fprintf(stderr, "tirc: error: no input file (see tirc --help)\n");
    return 2;
  }
  return -1;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) { free(buf); buf = NULL; }
      buf = nb;
    }
  }
  if (buf && ferror(f)) { free(buf); buf = NULL; }
  if (f != stdin) fclose(f);
  if (!buf) return NULL;
  buf[n < cap ? n : cap - 1] = 0;
  *len = n;
  return buf;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void list_passes(void) {
  int n = 0;
  const tir_pass_info *p = tir_pass_registry(&n);
  printf("passes (TVM name / alias):\n");
  for (int i = 0; i < n; i++) printf("  %-40s %-14s %s\n", p[i].name, p[i].alias, p[i].doc ? p[i].doc : "");
  const tir_named_pipeline *np = tir_pipeline_named(&n);
  printf("pipelines:\n");
  for (int i = 0; i < n; i++) printf("  %-14s %s\n", np[i].name, np[i].spec);
}

static int write_output(const options *o, const char *text) {
  FILE *f = o->output ? fopen(o->output, "wb") : stdout;
  if (!f) {
    fprintf(stderr, "tirc: error: cannot write '%s'\n", o->output);
    return 1;
  }
  fputs(text, f);
  if (f != stdout && fclose(f) != 0) {
    fprintf(stderr, "tirc: error: cannot write '%s'\n", o->output);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.list_passes) {
    list_passes();
    return 0;
  }
  const char *fname = strcmp(o.input, "-") ? o.input : "<stdin>";
  size_t len = 0;
  char *src = read_all(o.input, &len);
  if (!src) {
    fprintf(stderr, "tirc: error: cannot read '%s'\n", o.input);
    return 1;
  }

  tir_diag d;
  tir_diag_init(&d);
  tir_ctx *ctx = tir_ctx_new();
  tir_pipeline *pl = NULL;
  char *text = NULL;
  rc = 1;

  /* the pipeline is checked before reading: a bad --passes is a usage error */
  const char *spec = o.passes;
  if (!spec && strcmp(o.emit, "tir")) spec = "default";
  if (spec) {
    pl = tir_pipeline_parse(spec, &d);
    if (!pl) {
      for (int i = 0; i < d.n; i++) fprintf(stderr, "tirc: error: %s\n", d.items[i].msg);
      tir_diag_clear(&d);
      rc = 2;
      goto done;
    }
  }

  double t0 = now_ms();
  tir_module *m = tir_parse(ctx, src, len, &d);
  double t_parse = now_ms() - t0;
  if (pl) tir_pipeline_record_time(pl, "parse", t_parse);
  if (!m) goto done;

  if (pl) {
    tir_pipeline_opts po = {.verify_each = o.verify_each,
                            .print_after_all = o.print_after_all,
                            .print_after = o.print_after,
                            .time_passes = o.time_passes,
                            .print_stream = stderr};
    m = tir_pipeline_run(pl, ctx, m, &po, &d);
    if (!m) goto done;
  }

  t0 = now_ms();
  if (!strcmp(o.emit, "c")) {
    text = tir_codegen_c(m, &d);
  } else if (!strcmp(o.emit, "cuda")) {
    text = tir_codegen_cuda(m, &d);
  } else if (!strncmp(o.emit, "metadata", 8)) {
    bool cuda = o.target && !strcmp(o.target, "cuda");
    tir_aot_module *meta = tir_aot_build(m, cuda ? TIR_AOT_TARGET_CUDA : TIR_AOT_TARGET_C, src, len, &d);
    if (meta) text = strcmp(o.emit, "metadata") ? tir_aot_to_text(meta) : tir_aot_to_json(meta);
    tir_aot_free(meta);
  } else {
    tir_print_opts popts = {.dialect = o.dialect};
    text = tir_print_module(m, &popts);
  }
  if (pl) tir_pipeline_record_time(pl, "print", now_ms() - t0);
  if (!text) goto done;
  rc = write_output(&o, text);
  if (pl && o.time_passes) tir_pipeline_report_times(pl, stderr);

done:
  if (d.n) {
    char *msg = tir_diag_format(&d, fname, src, len);
    fputs(msg, stderr);
    free(msg);
  }
  if (rc == 0 && tir_diag_has_errors(&d)) rc = 1;
  free(text);
  tir_pipeline_free(pl);
  tir_ctx_free(ctx);
  tir_diag_free(&d);
  free(src);
  return rc;
}
