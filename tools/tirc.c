/* tirc.c - the command-line driver: flags in, library calls, exit codes out.
 *
 *   tirc [--passes=a,b,c] [--emit=tir|c|h|cuda|metadata|metadata-text] [-o FILE] FILE
 *
 * Every option is one entry of OPTS (its value check and help line with it).
 * To add one: a field in `options`, an entry in OPTS naming that field and a
 * setter (set_str, set_true, set_false, set_int, set_ll, set_ident, set_pass,
 * or a new one for a new kind of value), and its paragraph in docs/tirc.1
 * (make cli checks that --help and the man page list the same options).
 * Exit status: 0 success, 1 an error in the input, 2 bad usage. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tir/tir.h"

typedef struct options {
  const char *input;
  const char *output;
  const char *passes;
  const char *emit;
  const char *plan_memory; /* "on" / "off" */
  const char *workspace;   /* malloc, param, static */
  const char *target; /* for --emit=metadata*: c or cuda */
  const char *print_after;
  const char *symbol;
  const char *color;
  const char *plan_intervals; /* a CSV of live ranges to pack */
  long long plan_budget;      /* the packer's exact-search nodes (-1: unset, its default; 0: no search) */
  int error_limit;
  tir_dialect dialect;
  bool print_after_all, time_passes, verify_each, list_passes;
  bool run, verify_exec;       /* --run, --verify-exec */
  bool print_inferred;         /* --print-inferred */
  unsigned long long seed;     /* their inputs' seed */
  const char *assign[64];      /* --arg NAME=VALUE */
  int nassign;
} options;

/* every option: one entry of OPTS.  An entry names the option, whether it
 * takes a value (--opt=V or --opt V), the field of `options` it sets and the
 * setter that checks and stores the value; `values` lists the accepted values
 * (NULL: any), checked with a "did you mean".  --help and the man page are
 * written from (and tested against) this table.  A setter returns -1 to go
 * on, or an exit status (2 for a usage error, 0 for --help and --version). */
typedef enum { FLAG, VALUE } opt_kind;
typedef struct opt opt;
typedef int (*opt_setter)(options *o, const opt *op, const char *v);
struct opt {
  const char *name;
  opt_kind kind;
  size_t field; /* offsetof(options, ...) */
  opt_setter set;
  const char *const *values;
  const char *help_arg, *help;
};

static int usage_error(const char *fmt, const char *a, const char *b, const char *near) {
  fprintf(stderr, "tirc: error: ");
  fprintf(stderr, fmt, a, b);
  if (near) fprintf(stderr, "; did you mean '%s'?", near);
  fprintf(stderr, " (see tirc --help)\n");
  return 2;
}

#define FIELD(o, op, T) ((T *)((char *)(o) + (op)->field))
/* the setters an entry may name */
static int set_str(options *o, const opt *op, const char *v) { return *FIELD(o, op, const char *) = v, -1; }
static int set_true(options *o, const opt *op, const char *v) { return (void)v, *FIELD(o, op, bool) = true, -1; }
static int set_false(options *o, const opt *op, const char *v) { return (void)v, *FIELD(o, op, bool) = false, -1; }
static int parse_count(const opt *op, const char *v, long long max, long long *out) {
  char *end;
  errno = 0;
  long long l = strtoll(v, &end, 10);
  if (!*v || *end || l < 0 || l > max || errno) return usage_error("%s value '%s' is not a count", op->name, v, NULL);
  *out = l;
  return -1;
}
static int set_int(options *o, const opt *op, const char *v) { /* a count up to 1000000 */
  long long l;
  int rc = parse_count(op, v, 1000000, &l);
  if (rc < 0) *FIELD(o, op, int) = (int)l;
  return rc;
}
static int set_ll(options *o, const opt *op, const char *v) { /* a count */
  long long l;
  int rc = parse_count(op, v, LLONG_MAX, &l);
  if (rc < 0) *FIELD(o, op, long long) = l;
  return rc;
}
static int set_ident(options *o, const opt *op, const char *v) { /* a C identifier */
  bool ident = *v && !(*v >= '0' && *v <= '9');
  for (const char *c = v; *c; c++)
    ident &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
  if (!ident) return usage_error("%s value '%s' is not a C identifier", op->name, v, NULL);
  return set_str(o, op, v);
}
static int set_pass(options *o, const opt *op, const char *v) { /* a pass name or alias */
  if (!tir_pass_lookup(v)) {
    int np = 0;
    const tir_pass_info *reg = tir_pass_registry(&np);
    const char *cands[64];
    int nc = 0;
    for (int i = 0; i < np && nc < 62; i++) cands[nc++] = reg[i].alias, cands[nc++] = reg[i].name;
    return usage_error("%s: unknown pass '%s'", op->name, v, tir_suggest(v, cands, nc));
  }
  return set_str(o, op, v);
}
static int set_dialect(options *o, const opt *op, const char *v) {
  return *FIELD(o, op, tir_dialect) = strcmp(v, "tir") ? TIR_DIALECT_TIRX : TIR_DIALECT_TIR, -1;
}
static int set_seed(options *o, const opt *op, const char *v) {
  char *end;
  errno = 0;
  unsigned long long l = strtoull(v, &end, 0);
  if (!*v || *end || *v == '-' || errno) return usage_error("%s value '%s' is not a count", op->name, v, NULL);
  *FIELD(o, op, unsigned long long) = l;
  return -1;
}
static int set_arg(options *o, const opt *op, const char *v) { /* NAME=VALUE, repeatable */
  const char *eq = strchr(v, '=');
  if (!eq || eq == v || !eq[1]) return usage_error("%s value '%s' is not NAME=VALUE", op->name, v, NULL);
  if (o->nassign == 64) return usage_error("%s: more than 64 values%s", op->name, "", NULL);
  o->assign[o->nassign++] = v;
  return -1;
}
static void usage(FILE *f);
static int do_help(options *o, const opt *op, const char *v) { return (void)o, (void)op, (void)v, usage(stdout), 0; }
static int do_version(options *o, const opt *op, const char *v) {
  return (void)o, (void)op, (void)v, printf("tirc %s\n", TIR_VERSION), 0;
}

static const char *const EMITS[] = {"tir", "c", "h", "cuda", "metadata", "metadata-text", "buffer-assignment", NULL};
static const char *const WORKSPACES[] = {"malloc", "param", "static", NULL};
static const char *const ONOFF[] = {"on", "off", NULL};
static const char *const DIALECTS[] = {"tirx", "tir", NULL};
static const char *const TARGETS[] = {"c", "cuda", NULL};
static const char *const COLORS[] = {"auto", "always", "never", NULL};

#define F(x) offsetof(options, x)
static const opt OPTS[] = {
    {"--passes", VALUE, F(passes), set_str, NULL, "a,b,c", "run these passes in order (names or aliases, or a named pipeline such as 'default'); see --list-passes"},
    {"--emit", VALUE, F(emit), set_str, EMITS, "KIND", "output: tir (default), c, h (the header declaring what c defines), cuda, metadata (JSON), metadata-text (docs/aot-metadata.md) or buffer-assignment (the memory plan in XLA's grammar); all but tir run the 'default' pipeline unless --passes is given, then (unless --plan-memory=off) PlanMemory"},
    {"--plan-memory", VALUE, F(plan_memory), set_str, ONOFF, "on|off", "plan the temporaries (PlanMemory) before emitting c, h, cuda, metadata or buffer-assignment (default on)"},
    {"--workspace", VALUE, F(workspace), set_str, WORKSPACES, "malloc|param|static", "how the generated C holds its planned workspace: malloc'd and freed (default), passed by the caller as the last parameter, or a static array"},
    {"--target", VALUE, F(target), set_str, TARGETS, "c|cuda", "the code --emit=metadata describes (default c)"},
    {"--dialect", VALUE, F(dialect), set_dialect, DIALECTS, "tirx|tir", "TVMScript spelling to print (default tirx)"},
    {"--symbol", VALUE, F(symbol), set_ident, NULL, "NAME", "the C/CUDA symbol of the emitted function (a module of one function)"},
    {"-o", VALUE, F(output), set_str, NULL, "FILE", "write the output to FILE ('-': stdout)"},
    {"--list-passes", FLAG, F(list_passes), set_true, NULL, NULL, "list the known passes and pipelines"},
    {"--print-after-all", FLAG, F(print_after_all), set_true, NULL, NULL, "print the IR to stderr after every pass"},
    {"--print-after", VALUE, F(print_after), set_pass, NULL, "NAME", "print the IR to stderr after pass NAME"},
    {"--time-passes", FLAG, F(time_passes), set_true, NULL, NULL, "print a table of time spent per pass to stderr"},
    {"--verify-each", FLAG, F(verify_each), set_true, NULL, NULL, "verify the IR after each pass (default)"},
    {"--no-verify-each", FLAG, F(verify_each), set_false, NULL, NULL, "do not verify the IR after each pass"},
    {"--color", VALUE, F(color), set_str, COLORS, "WHEN", "colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset; default), always, never"},
    {"--error-limit", VALUE, F(error_limit), set_int, NULL, "N", "show at most N errors (0: all)"},
    {"--plan-budget", VALUE, F(plan_budget), set_ll, NULL, "N", "nodes of the packer's exact search (default 2000000; 0: none)"},
    {"--plan-intervals", VALUE, F(plan_intervals), set_str, NULL, "F.csv", "pack the live ranges of F.csv (MiniMalloc's id,lower,upper,size) and write them with their offsets; the plan's statistics go to stderr"},
    {"--run", FLAG, F(run), set_true, NULL, NULL, "run each function (after --passes) on seeded random inputs and print one line per buffer argument: NAME DTYPE SHAPE HASH (docs/exec.md)"},
    {"--print-inferred", FLAG, F(print_inferred), set_true, NULL, NULL, "without --passes, also print what the reader filled in that TVM fills in again as it reads: a block's inferred T.reads/T.writes, s_tir=True of a function with blocks (by default the program is printed as written there)"},
    {"--verify-exec", FLAG, F(verify_exec), set_true, NULL, NULL, "run each function before the passes and after each pass on the same inputs; a pass that changes a result, or makes the run fail, is an error"},
    {"--seed", VALUE, F(seed), set_seed, NULL, "N", "the seed of the inputs of --run and --verify-exec (default 1)"},
    {"--arg", VALUE, 0, set_arg, NULL, "NAME=V", "the value of scalar input NAME (a scalar parameter or a shape var such as n) for --run and --verify-exec; repeatable"},
    {"--help", FLAG, 0, do_help, NULL, NULL, "show this help"},
    {"--version", FLAG, 0, do_version, NULL, NULL, "show the version"},
};
#undef F
#define NOPTS ((int)(sizeof OPTS / sizeof OPTS[0]))

static void usage(FILE *f) {
  fputs("usage: tirc [options] [--] FILE      (FILE '-' reads stdin; after '--' no option is read)\n"
        "\n"
        "Reads a TVMScript TIR program, runs passes on it, and prints it as\n"
        "TVMScript, C, a C header, CUDA, or the AOT metadata of the C or CUDA.\n"
        "Options that take a value accept --opt=VALUE and --opt VALUE.\n"
        "\n"
        "options:\n",
        f);
  for (int i = 0; i < NOPTS; i++) {
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", OPTS[i].name, OPTS[i].help_arg ? (OPTS[i].name[1] == '-' ? "=" : " ") : "",
             OPTS[i].help_arg ? OPTS[i].help_arg : "");
    fprintf(f, "  %-22s %s\n", head, OPTS[i].help);
  }
  fputs("\nExit status: 0 success, 1 an error in the input, 2 bad usage.\n", f);
}

static const opt *find_opt(const char *name, size_t len) {
  for (int i = 0; i < NOPTS; i++)
    if (strlen(OPTS[i].name) == len && !strncmp(OPTS[i].name, name, len)) return &OPTS[i];
  return NULL;
}

static int set_value(options *o, const opt *op, const char *v) {
  if (op->values) {
    bool ok = false;
    for (int i = 0; op->values[i]; i++) ok |= !strcmp(op->values[i], v);
    if (!ok) return usage_error("unknown %s value '%s'", op->name, v, tir_suggest(v, op->values, -1));
  }
  return op->set(o, op, v);
}

/* returns -1 to continue, or an exit status */
static int parse_args(int argc, char **argv, options *o) {
  o->verify_each = true;
  o->emit = "tir";
  o->plan_memory = "on";
  o->dialect = TIR_DIALECT_TIRX;
  o->color = "auto";
  o->plan_budget = -1;
  o->seed = 1;
  bool only_files = false; /* after "--" every argument is a file */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_files && !strcmp(a, "--")) {
      only_files = true;
      continue;
    }
    if (only_files || a[0] != '-' || !strcmp(a, "-")) {
      if (o->input) return usage_error("more than one input file ('%s' and '%s')", o->input, a, NULL);
      o->input = a;
      continue;
    }
    if (!strcmp(a, "-h")) a = "--help";
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const opt *op = find_opt(a, len);
    if (!op) {
      const char *names[NOPTS + 1];
      for (int k = 0; k < NOPTS; k++) names[k] = OPTS[k].name;
      names[NOPTS] = NULL;
      char *word = strndup(a, len);
      int rc = usage_error("unknown option '%s'%s", word, "", tir_suggest(word, names, NOPTS));
      free(word);
      return rc;
    }
    const char *v = eq ? eq + 1 : NULL;
    if (op->kind == FLAG && eq) return usage_error("option '%s' takes no value%s", op->name, "", NULL);
    if (op->kind == VALUE && !v) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value (%s)", op->name, op->help_arg, NULL);
      v = argv[++i];
    }
    int rc = set_value(o, op, v);
    if (rc >= 0) return rc;
  }
  if (o->list_passes || o->plan_intervals) return -1;
  if (!o->input) return usage_error("no input file%s%s", "", "", NULL);
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
  bool to_stdout = !o->output || !strcmp(o->output, "-");
  FILE *f = to_stdout ? stdout : fopen(o->output, "wb");
  if (!f) {
    fprintf(stderr, "tirc: error: cannot write '%s'\n", o->output);
    return 1;
  }
  fputs(text, f);
  if (to_stdout ? fflush(f) != 0 : fclose(f) != 0) {
    fprintf(stderr, "tirc: error: cannot write '%s'\n", o->output);
    return 1;
  }
  return 0;
}


/* --run: every function on seeded inputs; the lines of its buffers */
static int run_module(const options *o, const tir_module *m, tir_diag *d) {
  bool used[64] = {false};
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  if (!text) return 1;
  text[0] = 0;
  int rc = 0;
  for (int i = 0; i < m->nfuncs && rc == 0; i++) {
    const tir_func *f = m->funcs[i];
    tir_exec_args *a = tir_exec_args_new(f, d);
    if (!a) { rc = 1; break; }
    for (int k = 0; k < o->nassign && rc == 0; k++) {
      const char *eq = strchr(o->assign[k], '=');
      char name[128];
      size_t nl = (size_t)(eq - o->assign[k]) < sizeof name - 1 ? (size_t)(eq - o->assign[k]) : sizeof name - 1;
      memcpy(name, o->assign[k], nl);
      name[nl] = 0;
      for (int j = 0; j < a->n; j++)
        if (!a->a[j].is_buffer && !strcmp(a->a[j].name, name)) {
          used[k] = true;
          if (!tir_exec_args_set(a, name, eq + 1, d)) rc = 1;
        }
    }
    if (rc == 0 && (!tir_exec_args_randomize(a, o->seed, d) || !tir_exec(f, a, NULL, d))) rc = 1;
    if (rc == 0) {
      char *buf = NULL;
      size_t blen = 0;
      FILE *mf = open_memstream(&buf, &blen);
      if (!mf) { rc = 1; }
      else {
        if (m->nfuncs > 1) fprintf(mf, "# %s\n", f->name);
        tir_exec_args_print(a, mf);
        fclose(mf);
        if (len + blen + 1 > cap) {
          while (len + blen + 1 > cap) cap *= 2;
          char *nt = realloc(text, cap);
          if (!nt) { free(buf); rc = 1; tir_exec_args_free(a); break; }
          text = nt;
        }
        memcpy(text + len, buf, blen + 1);
        len += blen;
        free(buf);
      }
    }
    tir_exec_args_free(a);
  }
  for (int k = 0; k < o->nassign && rc == 0; k++)
    if (!used[k]) {
      fprintf(stderr, "tirc: error: --arg %s: no function has a scalar input of that name\n", o->assign[k]);
      rc = 2;
    }
  if (rc == 0) rc = write_output(o, text);
  free(text);
  return rc;
}

/* every function lowered (no blocks left) */
static bool no_blocks_cb(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BLOCK_REALIZE) *(bool *)v->user = false;
  return *(bool *)v->user;
}

static bool lowered_module(const tir_module *m) {
  bool ok = true;
  for (int i = 0; i < m->nfuncs && ok; i++) {
    tir_visitor v = {.stmt = no_blocks_cb, .user = &ok};
    tir_visit_stmt(&v, m->funcs[i]->body);
  }
  return ok;
}

/* --plan-intervals: the packer alone, on MiniMalloc's CSV */
static int plan_intervals(const options *o) {
  size_t len = 0;
  char *src = read_all(o->plan_intervals, &len);
  if (!src) {
    fprintf(stderr, "tirc: error: cannot read '%s'\n", o->plan_intervals);
    return 1;
  }
  tir_diag d;
  tir_diag_init(&d);
  int n = 0, rc = 1;
  char **ids = NULL;
  tir_interval *iv = tir_plan_read_csv(src, len, &n, &ids, &d);
  tir_plan_stats st;
  tir_plan_options po = {.node_budget = o->plan_budget < 0 ? 0 : o->plan_budget == 0 ? -1 : o->plan_budget};
  if (iv && tir_plan_intervals(iv, n, &po, &st, &d) == 0) {
    char *out = tir_plan_write_csv(iv, ids, n);
    rc = write_output(o, out);
    free(out);
    fprintf(stderr, "plan: %d buffers, lower bound %lld, arena %lld, gap %.2f%%, %s, best rule %s (%d rules)\n", n,
            (long long)st.lower_bound, (long long)st.arena, st.gap_percent,
            st.proven_optimal ? "proven optimal" : "not proven optimal", st.winner ? st.winner : "-", st.candidates);
    fprintf(stderr, "plan: search: %lld nodes in %d runs\n", (long long)st.nodes, st.runs);
  }
  if (d.n) {
    char *msg = tir_diag_format(&d, o->plan_intervals, src, len);
    fputs(msg, stderr);
    free(msg);
  }
  for (int i = 0; i < n; i++) free(ids[i]);
  free(ids);
  free(iv);
  tir_diag_free(&d);
  free(src);
  return rc;
}

/* read, run the passes, plan, print or run: one input, on the deep stack */
static int compile(options o) {
  int rc;
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
  tir_memplan_report *reports = NULL;
  int nreports = 0;
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
  /* code is not generated for an access out of bounds each time it runs */
  tir_parse_opts rdo = {.oob_access_errors = strcmp(o.emit, "tir") != 0};
  tir_module *m = tir_parse_ex(ctx, src, len, &rdo, &d);
  double t_parse = now_ms() - t0;
  if (pl) tir_pipeline_record_time(pl, "parse", t_parse);
  if (!m) goto done;
  if (m->ntext_funcs && (strcmp(o.emit, "tir") || o.run)) {
    /* a Relax function is kept as text for printing only: no code, plan or
     * run of a module that holds one (the kernels would run without it) */
    const tir_text_func *t = &m->text_funcs[0];
    tir_error(&d, t->span, "@%s '%s' is kept as text: tirc %s TIR functions only (write its @T.prim_func "
                           "functions to a module of their own)", t->kind, t->name,
              o.run ? "runs" : "generates code and plans memory for");
    goto done;
  }

  if (pl) {
    tir_pipeline_opts po = {.verify_each = o.verify_each,
                            .print_after_all = o.print_after_all,
                            .print_after = o.print_after,
                            .time_passes = o.time_passes,
                            .print_stream = stderr,
                            .verify_exec = o.verify_exec,
                            .exec_seed = o.seed,
                            .exec_assign = o.assign,
                            .exec_nassign = o.nassign};
    m = tir_pipeline_run_reclaim(pl, ctx, m, &po, &d); /* the input is not needed after it */
    if (!m) goto done;
  }
  /* memory planning before code (and for the buffer assignment) */
  bool codegen = strcmp(o.emit, "tir") != 0;
  if (codegen && strcmp(o.plan_memory, "off") && !lowered_module(m)) {
    if (!strcmp(o.emit, "buffer-assignment")) {
      fprintf(stderr, "%s: error: the buffer assignment needs lowered IR: run the lowering passes (--passes=default)\n", fname);
      goto done;
    }
  } else if (codegen && strcmp(o.plan_memory, "off")) {
    bool cuda = !strcmp(o.emit, "cuda") || (!strncmp(o.emit, "metadata", 8) && o.target && !strcmp(o.target, "cuda"));
    tir_memplan_opts mo = {.target = !strcmp(o.emit, "buffer-assignment") ? TIR_MEMPLAN_AUTO
                                     : cuda                            ? TIR_MEMPLAN_CUDA
                                                                       : TIR_MEMPLAN_C,
                           .node_budget = o.plan_budget < 0 ? 0 : o.plan_budget == 0 ? -1 : o.plan_budget,
                           .workspace = o.workspace};
    tir_module *planned = tir_module_new_like(ctx, m);
    reports = calloc((size_t)(m->nfuncs ? m->nfuncs : 1), sizeof *reports);
    if (!reports) abort();
    for (int i = 0; i < m->nfuncs; i++) {
      tir_func *pf = tir_plan_memory(ctx, m->funcs[i], &mo, &reports[i], &d);
      nreports = i + 1;
      if (!pf) goto done;
      tir_module_add(ctx, planned, pf);
    }
    m = planned;
  } else if (!strcmp(o.emit, "buffer-assignment")) {
    fprintf(stderr, "tirc: error: --emit=buffer-assignment prints the memory plan: it needs --plan-memory=on\n");
    rc = 2;
    goto done;
  }
  if (o.symbol) {
    if (m->nfuncs != 1) {
      fprintf(stderr, "tirc: error: --symbol names one function, and %s has %d (see tirc --help)\n", fname, m->nfuncs);
      rc = 2;
      goto done;
    }
    tir_module *renamed = tir_module_new(ctx, m->name);
    tir_module_add(ctx, renamed, tir_func_with_symbol(ctx, m->funcs[0], o.symbol));
    m = renamed;
  }

  if (o.run) {
    rc = run_module(&o, m, &d);
    goto done;
  }

  t0 = now_ms();
  if (!strcmp(o.emit, "c")) {
    text = tir_codegen_c(m, &d);
  } else if (!strcmp(o.emit, "h")) {
    text = tir_codegen_h(m, &d);
  } else if (!strcmp(o.emit, "cuda")) {
    text = tir_codegen_cuda(m, &d);
  } else if (!strcmp(o.emit, "buffer-assignment")) {
    size_t cap = 1, len2 = 0;
    text = calloc(1, 1);
    for (int i = 0; i < nreports && text; i++) {
      char *t = tir_memplan_report_text(&reports[i]);
      size_t k = strlen(t);
      text = realloc(text, cap += k + 2);
      if (text) {
        if (i) text[len2++] = '\n';
        memcpy(text + len2, t, k + 1);
        len2 += k;
      }
      free(t);
    }
  } else if (!strncmp(o.emit, "metadata", 8)) {
    bool cuda = o.target && !strcmp(o.target, "cuda");
    tir_aot_module *meta = tir_aot_build(m, cuda ? TIR_AOT_TARGET_CUDA : TIR_AOT_TARGET_C, src, len, &d);
    if (meta) text = strcmp(o.emit, "metadata") ? tir_aot_to_text(meta) : tir_aot_to_json(meta);
    tir_aot_free(meta);
  } else {
    tir_print_opts popts = {.dialect = o.dialect, .as_written = !pl && !o.print_inferred}; /* no pass: as written */
    text = tir_print_module(m, &popts);
  }
  if (pl) tir_pipeline_record_time(pl, "print", now_ms() - t0);
  if (!text) goto done;
  rc = write_output(&o, text);
  if (pl && o.time_passes) tir_pipeline_report_times(pl, stderr);

done:
  if (d.n) {
    const char *nc = getenv("NO_COLOR");
    tir_diag_format_opts fo = {.error_limit = o.error_limit,
                               .color = !strcmp(o.color, "always") ||
                                        (!strcmp(o.color, "auto") && isatty(2) && !(nc && *nc))};
    char *msg = tir_diag_format_ex(&d, fname, src, len, &fo);
    fputs(msg, stderr);
    free(msg);
  }
  if (rc == 0 && tir_diag_has_errors(&d)) rc = 1;
  free(text);
  for (int i = 0; i < nreports; i++) tir_memplan_report_free(&reports[i]);
  free(reports);
  tir_pipeline_free(pl);
  tir_ctx_free(ctx);
  tir_diag_free(&d);
  free(src);
  return rc;
}

typedef struct compile_job {
  const options *o;
  int rc;
} compile_job;

static void compile_on_stack(void *p) {
  compile_job *j = p;
  j->rc = compile(*j->o);
}

int main(int argc, char **argv) {
  options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.plan_intervals) return plan_intervals(&o);
  if (o.list_passes) {
    list_passes();
    return 0;
  }
  /* the passes recurse per level of the IR: they run on a stack of 1 GiB
   * (TIR_STACK_MB), and running out of it is an error, not a crash */
  static char overflow[PATH_MAX + 256];
  snprintf(overflow, sizeof overflow,
           "%s: error: the program is nested too deeply for tirc's stack (set TIR_STACK_MB to more than %s)\n",
           strcmp(o.input, "-") ? o.input : "<stdin>", getenv("TIR_STACK_MB") ? getenv("TIR_STACK_MB") : "1024");
  compile_job j = {&o, 1};
  tir_run_with_stack(compile_on_stack, &j, 0, overflow);
  return j.rc;
}
