/* reader.c - tir_parse: input checks (NUL bytes, UTF-8), the tree-sitter
 * parse and its syntax errors, the import line, @I.ir_module classes and
 * @T.prim_func functions with their parameters. */
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/script.h"
#include "ir/const_fold.h"
#include "script/reader.h"

const TSLanguage *tree_sitter_python(void);

static const tir_span NO_SPAN = {0, 0}, FIRST = {1, 1};

/* ---- input checks ---- */

static tir_span pos_of(const char *src, size_t at) {
  tir_span sp = {1, 1};
  for (size_t i = 0; i < at; i++) {
    if (src[i] == '\n') sp.line++, sp.col = 1;
    else sp.col++;
  }
  return sp;
}

/* length of the UTF-8 sequence at s (n bytes left), 0 when invalid; its
 * code point in *out when out is given */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *out) {
  unsigned char c = s[0];
  size_t len;
  uint32_t min, cp;
  if (c < 0x80) {
    if (out) *out = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) len = 2, min = 0x80, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) len = 3, min = 0x800, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) len = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (out) *out = cp;
  return len;
}

static bool check_input(const char *src, size_t len, tir_diag *d) {
  const char *nul = memchr(src, 0, len);
  size_t i = 0;
  while (i < len) {
    size_t l = utf8_decode((const unsigned char *)src + i, len - i, NULL);
    if (!l) break;
    i += l;
  }
  size_t bad = i;
  if (nul && (size_t)(nul - src) <= bad) {
    tir_error(d, pos_of(src, (size_t)(nul - src)), "input contains a NUL byte");
    return false;
  }
  if (bad < len) {
    tir_error(d, pos_of(src, bad), "input is not valid UTF-8 text");
    return false;
  }
  /* a CR not before a LF ends a line for Python (a comment, a string) but
   * not for the grammar, which would read the next line as part of it */
  for (const char *cr = memchr(src, '\r', len); cr; cr = memchr(cr + 1, '\r', len - (size_t)(cr + 1 - src)))
    if ((size_t)(cr + 1 - src) >= len || cr[1] != '\n') {
      tir_error(d, pos_of(src, (size_t)(cr - src)), "a line ends in a lone carriage return (CR), which Python reads as a "
                                                    "line end: tirc reads LF and CRLF line ends only");
      return false;
    }
  return true;
}

/* ---- syntax errors ---- */

/* the first ERROR or MISSING node in document order; iterative, as trees
 * of long operator chains are deep */
static bool first_error(TSNode root, TSNode *out) {
  if (!ts_node_has_error(root) && !ts_node_is_missing(root)) return false;
  TSNode n = root;
  for (;;) {
    if (ts_node_is_missing(n) || rd_is(n, "ERROR")) {
      *out = n;
      return true;
    }
    /* descend into the first child that holds an error */
    uint32_t cnt = ts_node_child_count(n);
    bool down = false;
    for (uint32_t i = 0; i < cnt && !down; i++) {
      TSNode c = ts_node_child(n, i);
      if (ts_node_has_error(c) || ts_node_is_missing(c)) {
        n = c;
        down = true;
      }
    }
    if (!down) return false;
  }
}

/* a compound statement whose header line lacks its ':' */
static bool missing_colon(rd *r, TSNode err) {
  static const char *const kw[] = {"for", "while", "if", "elif", "else", "with", "def", "class", NULL};
  uint32_t start = ts_node_start_byte(err);
  size_t eol = start;
  while (eol < r->len && r->src[eol] != '\n') eol++;
  const char *line = r->src + start;
  bool hit = false;
  for (int i = 0; kw[i]; i++) {
    size_t l = strlen(kw[i]);
    if (start + l <= eol && !strncmp(line, kw[i], l) && (start + l == eol || line[l] == ' ' || line[l] == '('))
      hit = true;
  }
  if (!hit) return false;
  size_t end = eol;
  for (size_t i = start; i < eol; i++)
    if (r->src[i] == '#') { end = i; break; }
  while (end > start && (r->src[end - 1] == ' ' || r->src[end - 1] == '\t' || r->src[end - 1] == '\r')) end--;
  if (end > start && r->src[end - 1] == ':') return false;
  tir_span sp = rd_span(err);
  sp.col += (int)(end - start);
  tir_error(r->d, sp, "syntax error: expected ':'");
  return true;
}

/* "syntax error: invalid syntax at '...'", quoting the rest of the line
 * from the ERROR node (without a comment), when short and printable */
static void unexpected_token(rd *r, TSNode err) {
  uint32_t a = ts_node_start_byte(err), b = a;
  { /* A[i, *idx]: Python 3.11's starred index, which the grammar does not parse */
    uint32_t p = a;
    while (p > 0 && (r->src[p - 1] == ' ' || r->src[p - 1] == '\t')) p--;
    if (a < r->len && r->src[a] == '*' && (a + 1 >= r->len || r->src[a + 1] != '*') && p > 0 &&
        (r->src[p - 1] == ',' || r->src[p - 1] == '[')) {
      tir_error(r->d, rd_span(err), "a starred index (A[i, *idx]) is not supported (tree-sitter-python 0.23's "
                                    "grammar does not parse it): write the indices out");
      return;
    }
  }
  while (b < r->len && r->src[b] != '\n' && r->src[b] != '#') b++;
  while (b > a && (r->src[b - 1] == ' ' || r->src[b - 1] == '\t' || r->src[b - 1] == '\r')) b--;
  bool ok = b > a && b - a <= 40;
  for (uint32_t i = a; ok && i < b; i++)
    ok = (unsigned char)r->src[i] >= 0x20 && (unsigned char)r->src[i] < 0x7f;
  if (ok) tir_error(r->d, rd_span(err), "syntax error: invalid syntax at '%.*s'", (int)(b - a), r->src + a);
  else tir_error(r->d, rd_span(err), "syntax error");
}

static bool syntax_errors(rd *r, TSNode root) {
  TSNode e;
  if (!first_error(root, &e)) return false;
  if (ts_node_is_missing(e)) {
    const char *ty = ts_node_type(e);
    if (ts_node_is_named(e)) tir_error(r->d, rd_span(e), "syntax error: expected %s", ty);
    else tir_error(r->d, rd_span(e), "syntax error: expected '%s'", ty);
  } else if (!missing_colon(r, e)) {
    unexpected_token(r, e);
  }
  return true;
}

/* Python ends a statement at a newline or ';'; tree-sitter also accepts two
 * statements side by side on one line (`import tir as T@T.prim_func`,
 * `x = f(a) for i in range(n):`).  Checked over the statement lists of the
 * tree, iteratively. */
static bool run_together(rd *r, TSNode list) {
  uint32_t cnt;
  const TSNode *kids = rd_named_children(r, list, &cnt);
  TSNode prev = {0};
  bool have = false;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode s = kids[i];
    if (rd_is_extra(s)) continue;
    if (have && ts_node_end_point(prev).row == ts_node_start_point(s).row) {
      bool semi = false;
      for (uint32_t b = ts_node_end_byte(prev); b < ts_node_start_byte(s) && b < r->len; b++) semi |= r->src[b] == ';';
      if (!semi) {
        tir_error(r->d, rd_span(s), "syntax error: invalid syntax (a new statement on the same line)");
        return true;
      }
    }
    prev = s;
    have = true;
  }
  return false;
}

static bool has_blocks(TSNode n) {
  static const char *const COMPOUND[] = {"module", "block", "decorated_definition", "function_definition",
                                         "class_definition", "for_statement", "while_statement", "if_statement",
                                         "elif_clause", "else_clause", "with_statement", "try_statement",
                                         "except_clause", "except_group_clause", "finally_clause", "match_statement",
                                         "case_clause", "ERROR", NULL};
  const char *t = ts_node_type(n);
  for (int i = 0; COMPOUND[i]; i++)
    if (!strcmp(t, COMPOUND[i])) return true;
  return false;
}

static bool statements_run_together(rd *r, TSNode root) {
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool bad = false;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if ((rd_is(n, "module") || rd_is(n, "block")) && run_together(r, n)) {
      bad = true;
      break;
    }
    /* statement lists are only in compound statements: expressions (most of
     * the tree) are not entered */
    if (has_blocks(n) && ts_tree_cursor_goto_first_child(&cur)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cur))
      if (!ts_tree_cursor_goto_parent(&cur)) goto done;
  }
done:
  ts_tree_cursor_delete(&cur);
  return bad;
}

/* ---- imports ---- */

static void import_from(rd *r, TSNode n) {
  TSNode mod = rd_field(n, "module_name");
  const char *m = rd_text(r, mod);
  if (strcmp(m, "tvm.script")) return;
  uint32_t cnt = rd_child_count(n);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(n, i);
    if (ts_node_eq(c, mod)) continue;
    const char *name, *alias;
    if (rd_is(c, "aliased_import")) {
      name = rd_text(r, rd_field(c, "name"));
      alias = rd_text(r, rd_field(c, "alias"));
    } else if (rd_is(c, "dotted_name")) {
      name = alias = rd_text(r, c);
    } else {
      continue;
    }
    if (!strcmp(name, "tir") || !strcmp(name, "tirx")) {
      r->tirx = !strcmp(name, "tirx");
      r->t_alias = alias;
      r->t_alias_real = true;
    } else if (!strcmp(name, "ir")) {
      r->i_alias = alias;
      r->i_alias_real = true;
    } else {
      tir_error(r->d, rd_span(c), "unknown dialect '%s': expected 'from tvm.script import tir as T' (or tirx)", name);
    }
  }
}

/* TVM prints its import lines as comments ("# from tvm.script import tirx
 * as T") and tvm.script.from_source reads that text as it is; so does tirc.
 * A real import line, where there is one, wins over a commented one. */
static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

static const char *skip_word(const char *p, const char *w) {
  size_t n = strlen(w);
  if (strncmp(p, w, n) || (p[n] != ' ' && p[n] != '\t')) return NULL;
  return skip_ws(p + n);
}

static size_t ident_len(const char *p) {
  size_t n = 0;
  while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (n && p[n] >= '0' && p[n] <= '9'))
    n++;
  return n;
}

static void commented_import(rd *r, TSNode n) {
  const char *p = skip_ws(rd_text(r, n) + 1); /* past '#' */
  if (!(p = skip_word(p, "from")) || !(p = skip_word(p, "tvm.script")) || !(p = skip_word(p, "import"))) return;
  size_t nl = ident_len(p);
  if (!nl) return;
  const char *name = tir_strndup(r->c, p, nl), *alias = name;
  const char *q = skip_ws(p + nl);
  if ((q = skip_word(q, "as"))) {
    size_t al = ident_len(q);
    if (!al || *skip_ws(q + al)) return;
    alias = tir_strndup(r->c, q, al);
  } else if (*skip_ws(p + nl)) {
    return;
  }
  if ((!strcmp(name, "tir") || !strcmp(name, "tirx")) && !r->t_alias_real) {
    r->tirx = !strcmp(name, "tirx");
    r->t_alias = alias;
  } else if (!strcmp(name, "ir") && !r->i_alias_real) {
    r->i_alias = alias;
  }
}

/* ---- functions ---- */

static bool decorator_is(rd *r, TSNode dec, const char *tname, TSNode *call) {
  TSNode e = rd_child(dec, 0);
  *call = (TSNode){0};
  if (rd_is(e, "call")) {
    *call = e;
    e = rd_field(e, "function");
  }
  const char *tn = rd_t_name(r, e);
  if (tn) return !strcmp(tn, tname);
  /* spelled out: @tvm.script.tirx.prim_func, @tvm.script.tir.macro */
  const char *dt = rd_text(r, e);
  static const char *const pre[] = {"tvm.script.tirx.", "tvm.script.tir.", NULL};
  for (int i = 0; pre[i]; i++) {
    size_t k = strlen(pre[i]);
    if (!strncmp(dt, pre[i], k) && !strcmp(dt + k, tname)) return true;
  }
  return false;
}

/* @I.ir_module(check_well_formed=B): TVM's ir_module takes that keyword only */
static bool module_flags(rd *r, TSNode call, tir_module *m) {
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return false;
  if (a.npos) {
    tir_error(r->d, rd_span(call), "@I.ir_module takes keyword arguments only (check_well_formed=...)");
    return false;
  }
  for (int i = 0; i < a.nkw; i++) {
    if (strcmp(a.kw[i], "check_well_formed")) {
      static const char *const kws[] = {"check_well_formed", NULL};
      const char *near = tir_suggest(a.kw[i], kws, -1);
      if (near) tir_error(r->d, a.kwsp[i], "unknown @I.ir_module argument '%s'; did you mean '%s'?", a.kw[i], near);
      else tir_error(r->d, a.kwsp[i], "unknown @I.ir_module argument '%s' (it takes check_well_formed)", a.kw[i]);
      return false;
    }
    if (a.kwv[i].k != RV_BOOL) {
      tir_error(r->d, a.kwsp[i], "@I.ir_module(check_well_formed=...) expects True or False");
      return false;
    }
    m->no_wf_check = !a.kwv[i].i;
  }
  return true;
}

static bool prim_func_flags(rd *r, TSNode call, rd_func *fn) {
  if (ts_node_is_null(call)) return true;
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return false;
  for (int i = 0; i < a.nkw; i++) {
    const char *k = a.kw[i];
    rval v = a.kwv[i];
    if (v.k != RV_BOOL) {
      tir_error(r->d, a.kwsp[i], "@T.prim_func(%s=...) expects True or False", k);
      return false;
    }
    if (!strcmp(k, "private") || !strcmp(k, "is_private")) fn->f->private_ = v.i;
    else if (!strcmp(k, "s_tir")) fn->explicit_s_tir = v.i;
    else if (!strcmp(k, "persistent")) fn->persistent = v.i;
    else if (!strcmp(k, "check_well_formed")) fn->f->no_wf_check = !v.i;
    else {
      static const char *const kws[] = {"private", "is_private", "s_tir", "check_well_formed", "persistent", NULL};
      const char *near = tir_suggest(k, kws, -1);
      if (near) tir_error(r->d, a.kwsp[i], "unknown @T.prim_func argument '%s'; did you mean '%s'?", k, near);
      else tir_error(r->d, a.kwsp[i], "unknown @T.prim_func argument '%s'", k);
      return false;
    }
  }
  if (a.npos) {
    tir_error(r->d, rd_span(call), "@T.prim_func takes keyword arguments only");
    return false;
  }
  return true;
}

/* `n = TypeVar("n")` (TVM 0.27 prints one for an int64 var a signature
 * uses first, with `# from typing import TypeVar`): true when s is one,
 * recorded or reported */
/* what a module-level constant may be written with: literals, names of
 * earlier constants, operators, tuples and lists, T.<dtype>(...) */
enum { CONST_DEPTH = 100, MAX_GLOBALS = 1024 };

static bool const_syntax(rd *r, TSNode n, int depth, TSNode *bad) {
  if (depth > CONST_DEPTH) {
    *bad = n;
    return false;
  }
  if (rd_is(n, "string") || rd_is(n, "concatenated_string")) { /* no f-string interpolation */
    uint32_t k = rd_child_count(n);
    for (uint32_t j = 0; j < k; j++) {
      TSNode c = rd_child(n, j);
      if (rd_is(c, "interpolation")) { /* f"k{i}": of a constant (reader_expr.c formats it) */
        if (rd_child_count(c) != 1 || !const_syntax(r, rd_child(c, 0), depth + 1, bad)) {
          if (rd_child_count(c) != 1) *bad = c;
          return false;
        }
        continue;
      }
      if (rd_is(c, "string") && !const_syntax(r, c, depth + 1, bad)) return false;
    }
    return true;
  }
  static const char *const leaf[] = {"integer", "float", "true", "false", "none", "identifier", NULL};
  for (int i = 0; leaf[i]; i++)
    if (rd_is(n, leaf[i])) return true;
  if (rd_is_extra(n)) return true;
  if (rd_is(n, "call")) {
    const char *tn = rd_t_name(r, rd_field(n, "function"));
    tir_dtype t;
    /* T.<dtype>(...), or one of Python's builtins on constants */
    static const char *const builtin[] = {"max", "min", "abs", "int", "float", "bool", "len", "sum", "str",
                                          "tuple", "list", "range", NULL};
    bool ok = tn && tir_dtype_parse(tn, &t);
    TSNode fn = rd_field(n, "function");
    for (int i = 0; !ok && builtin[i]; i++) ok = rd_is(fn, "identifier") && !strcmp(rd_text(r, fn), builtin[i]);
    if (!ok) {
      *bad = n;
      return false;
    }
    n = rd_field(n, "arguments");
    if (!rd_is(n, "argument_list") && !rd_is(n, "generator_expression")) {
      *bad = n;
      return false;
    }
  } else if (!rd_is(n, "unary_operator") && !rd_is(n, "binary_operator") && !rd_is(n, "parenthesized_expression") &&
             !rd_is(n, "tuple") && !rd_is(n, "list") && !rd_is(n, "expression_list") &&
             !rd_is(n, "conditional_expression") && !rd_is(n, "comparison_operator") &&
             !rd_is(n, "boolean_operator") && !rd_is(n, "not_operator") && !rd_is(n, "subscript") &&
             !rd_is(n, "slice") && !rd_is(n, "list_comprehension") && !rd_is(n, "for_in_clause") &&
             !rd_is(n, "if_clause") && !rd_is(n, "dictionary") && !rd_is(n, "pair") &&
             !rd_is(n, "dictionary_comprehension") &&
             !rd_is(n, "generator_expression")) {
    *bad = n;
    return false;
  }
  uint32_t k = rd_child_count(n);
  for (uint32_t j = 0; j < k; j++)
    if (!const_syntax(r, rd_child(n, j), depth + 1, bad)) return false;
  return true;
}

/* bad is CONST_DEPTH levels below rhs */
static bool const_too_deep(TSNode rhs, TSNode bad) {
  int d = 0;
  for (TSNode n = bad; !ts_node_is_null(n) && !ts_node_eq(n, rhs) && d <= CONST_DEPTH + 1; n = ts_node_parent(n))
    if (ts_node_is_named(n)) d++;
  return d > CONST_DEPTH;
}

/* a tuple whose items were checked (folded, constant) already: a module
 * constant built of earlier ones shares their items, `C1 = (C0, C0)`, and
 * is not walked again (40 such lines had taken 2^40 steps) */
static bool checked_tuple(const rd *r, rval v) {
  return v.k == RV_TUPLE && v.n && tir_ptrmap_get(&r->const_tuples, v.items, 0);
}

static bool const_value(rd *r, rval v) {
  switch (v.k) {
    case RV_INT: case RV_FLOAT: case RV_BOOL: case RV_STR: case RV_NONE: case RV_BIGINT: return true;
    case RV_EXPR: return tir_is_constant_valued(v.e);
    case RV_TUPLE:
      if (checked_tuple(r, v)) return true;
      for (int i = 0; i < v.n; i++)
        if (!const_value(r, v.items[i])) return false;
      if (v.n) tir_ptrmap_put(&r->const_tuples, v.items, 1);
      return true;
    case RV_DICT:
      for (int i = 0; i < v.n; i++)
        if (!const_value(r, v.keys[i]) || !const_value(r, v.items[i])) return false;
      return true;
    default: return false;
  }
}

/* Python runs a module's expressions with TVM's operators, which fold a
 * comparison of constants (T.int32(4) > 8 is T.bool(False)) where the
 * parser's own evaluator, in a body, keeps the node: folded here; any
 * other expr that is not a constant is no Python constant (refused) */
static bool module_fold(rd *r, rval *v) {
  if (checked_tuple(r, *v)) return true;
  if (v->k == RV_TUPLE) {
    for (int i = 0; i < v->n; i++)
      if (!module_fold(r, &v->items[i])) return false;
    return true;
  }
  if (v->k != RV_EXPR || !v->e) return true;
  tir_expr *e = v->e;
  if (e->kind == TIR_INT_IMM || e->kind == TIR_FLOAT_IMM || e->kind == TIR_STRING_IMM) return true;
  if (TIR_IS_CMP(e->kind) && tir_dtype_eq(e->u.bin.a->dtype, e->u.bin.b->dtype)) {
    tir_expr *f = ir_fold_apply(r->c, ir_const_fold(e->kind, e->u.bin.a, e->u.bin.b), e->u.bin.a, e->u.bin.b);
    if (f && (f->kind == TIR_INT_IMM || f->kind == TIR_FLOAT_IMM)) {
      *v = rv_expr(f, v->sp);
      return true;
    }
  }
  return false; /* an expr, not constant: no Python constant */
}

/* does a statement of the module before `upto` bind name (an assignment,
 * a def or class, an import), or does the module say `from __future__
 * import annotations` (name NULL) */
static bool binds_name(rd *r, TSNode n, const char *name) {
  if (rd_is(n, "identifier")) return !strcmp(rd_text(r, n), name);
  if (rd_is(n, "pattern_list") || rd_is(n, "tuple_pattern") || rd_is(n, "list_pattern") ||
      rd_is(n, "list_splat_pattern") || rd_is(n, "tuple") || rd_is(n, "list") || rd_is(n, "expression_list")) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
      if (binds_name(r, ts_node_named_child(n, i), name)) return true;
  }
  return false;
}

static bool module_binds(rd *r, TSNode upto, const char *name) {
  TSNode root = ts_node_parent(upto);
  for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
    TSNode c = ts_node_named_child(root, i);
    if (ts_node_eq(c, upto)) break;
    if (rd_is(c, "future_import_statement")) {
      if (!name && strstr(rd_text(r, c), "annotations")) return true;
      continue;
    }
    if (!name) continue;
    if (rd_is(c, "import_statement") || rd_is(c, "import_from_statement")) {
      for (uint32_t k = 0; k < ts_node_named_child_count(c); k++) {
        TSNode d = ts_node_named_child(c, k);
        if (ts_node_eq(d, rd_field(c, "module_name"))) continue;
        if (rd_is(d, "aliased_import")) d = rd_field(d, "alias");
        const char *t = rd_text(r, d), *dot = strchr(t, '.');
        size_t len = dot ? (size_t)(dot - t) : strlen(t); /* import a.b binds a */
        if (strlen(name) == len && !strncmp(t, name, len)) return true;
        if (rd_is(d, "wildcard_import")) return true;
      }
      continue;
    }
    if (rd_is(c, "decorated_definition")) c = rd_field(c, "definition");
    if (rd_is(c, "function_definition") || rd_is(c, "class_definition")) {
      if (!strcmp(rd_text(r, rd_field(c, "name")), name)) return true;
      continue;
    }
    if (rd_is(c, "expression_statement") && rd_is(rd_child(c, 0), "assignment")) {
      for (TSNode a = rd_child(c, 0); rd_is(a, "assignment"); a = rd_field(a, "right"))
        if (binds_name(r, rd_field(a, "left"), name)) return true;
    }
  }
  return false;
}

/* `N: X = 8` at the top level: Python (3.11, TVM's) evaluates X, and a
 * name no statement before binds, nor Python's builtins, is a NameError
 * there; the first such, or a null node */
static TSNode undefined_annotation_name(rd *r, TSNode stmt, TSNode ann) {
  static const char *const BUILTINS[] = {
      "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup", "BlockingIOError",
      "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError", "ConnectionAbortedError",
      "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
      "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError",
      "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
      "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
      "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None",
      "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
      "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError",
      "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError",
      "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError",
      "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
      "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter", "all", "anext",
      "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile",
      "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
      "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input",
      "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min",
      "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round",
      "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", NULL};
  if (rd_is(ann, "identifier")) {
    const char *nm = rd_text(r, ann);
    if (!strncmp(nm, "__", 2)) return (TSNode){0}; /* __name__, __file__ ... */
    for (int i = 0; BUILTINS[i]; i++)
      if (!strcmp(BUILTINS[i], nm)) return (TSNode){0};
    return module_binds(r, stmt, nm) ? (TSNode){0} : ann;
  }
  if (rd_is(ann, "string") || rd_is(ann, "lambda")) return (TSNode){0}; /* not looked into */
  TSNode attr = rd_is(ann, "attribute") ? rd_field(ann, "attribute") : (TSNode){0};
  for (uint32_t i = 0; i < ts_node_named_child_count(ann); i++) {
    TSNode c = ts_node_named_child(ann, i);
    if (!ts_node_is_null(attr) && ts_node_eq(c, attr)) continue; /* T.int32's int32 */
    if (rd_is(c, "keyword_argument")) c = rd_field(c, "value");
    TSNode bad = undefined_annotation_name(r, stmt, c);
    if (!ts_node_is_null(bad)) return bad;
  }
  return (TSNode){0};
}

/* `N = 128` at the top level (names, or a tuple of names, bound to Python
 * constants): TVM's parser runs in the module's Python, where a function
 * sees the globals bound before it is decorated */
static bool module_const(rd *r, TSNode s) {
  TSNode a = rd_child(s, 0);
  if (!rd_is(s, "expression_statement") || !rd_is(a, "assignment") || rd_child_count(s) != 1) return false;
  TSNode lhs = rd_field(a, "left"), rhs = rd_field(a, "right");
  /* `N: int = 4`: Python binds the value; the annotation is not evaluated */
  if (ts_node_is_null(rhs) || (!ts_node_is_null(rd_field(a, "type")) && !rd_is(lhs, "identifier"))) return false;
  TSNode ann = rd_field(a, "type");
  if (!ts_node_is_null(ann) && !module_binds(r, s, NULL)) {
    TSNode und = undefined_annotation_name(r, s, ts_node_named_child_count(ann) == 1 && rd_is(ann, "type")
                                                     ? ts_node_named_child(ann, 0) : ann);
    if (!ts_node_is_null(und)) {
      tir_error(r->d, rd_span(und), "name '%s' is not defined: Python evaluates a module-level annotation (TVM's "
                                    "module fails with a NameError)", rd_text(r, und));
      return true;
    }
  }
  uint32_t nn = rd_is(lhs, "identifier") ? 1 : rd_child_count(lhs);
  bool names = rd_is(lhs, "identifier") || rd_is(lhs, "pattern_list") || rd_is(lhs, "tuple_pattern");
  for (uint32_t i = 0; names && !rd_is(lhs, "identifier") && i < nn; i++)
    names = rd_is(rd_child(lhs, i), "identifier");
  if (!names) return false;
  TSNode bad = {0};
  if (!const_syntax(r, rhs, 0, &bad)) {
    tir_error(r->d, rd_span(bad),
              "a module-level name is read only as a Python constant (a number, string, bool or None, a tuple or "
              "list or dict of them, T.<dtype>(...), Python's max, min, abs, int, float, bool, len, sum, str, tuple, list or "
              "range, or operators, comparisons, conditionals, subscripts, slices, list and dict comprehensions, generator "
              "expressions and f-strings without a format spec on them "
              "and on names bound so before%s)",
              const_too_deep(rhs, bad) ? "; this one is nested more than 100 deep" : "");
    return true;
  }
  rd_pop_syms(r, 0);
  rd_push_globals(r, r->nglobals);
  r->module_eval = true;
  rval v = rd_eval(r, rhs);
  r->module_eval = false;
  rd_pop_syms(r, 0);
  bool bad_value = v.k == RV_ERR;
  if (!bad_value && (!module_fold(r, &v) || !const_value(r, v))) {
    tir_error(r->d, rd_span(rhs), "a module-level name is read only as a Python constant; this value is not one");
    bad_value = true;
  }
  if (!bad_value && !rd_is(lhs, "identifier") && (v.k != RV_TUPLE || v.n != (int)nn)) {
    tir_error(r->d, rd_span(rhs), "the value does not unpack into %u names", nn);
    bad_value = true;
  }
  if (bad_value) v = (rval){.k = RV_ERR}; /* its names bound, so that their uses stay quiet */
  for (uint32_t i = 0; i < nn; i++) {
    TSNode id = rd_is(lhs, "identifier") ? lhs : rd_child(lhs, i);
    const char *name = rd_text(r, id);
    if (rd_py_keyword(name)) {
      tir_error(r->d, rd_span(id), "'%s' is a Python keyword: it cannot be a name", name);
      return true;
    }
    if ((r->t_alias && !strcmp(name, r->t_alias)) || (r->i_alias && !strcmp(name, r->i_alias)) ||
        !strcmp(name, "T") || !strcmp(name, "I")) {
      tir_error(r->d, rd_span(id), "'%s' names a TVMScript namespace: binding it at the module level is not supported",
                name);
      return true;
    }
    rval one = rd_is(lhs, "identifier") || bad_value ? v : v.items[i];
    /* each binding is appended (a name bound again is rebound: the later
     * binding shadows the earlier), so that a macro sees them as they
     * were where it was defined (rd_push_globals) */
    if (r->nglobals == MAX_GLOBALS) { /* each function's scope starts with them all */
      tir_error(r->d, rd_span(id), "more than %d module-level bindings", MAX_GLOBALS);
      return true;
    }
    if (r->nglobals == r->capglobals) {
      r->capglobals = r->capglobals ? 2 * r->capglobals : 8;
      r->globals = realloc(r->globals, sizeof *r->globals * (size_t)r->capglobals);
      if (!r->globals) abort();
    }
    r->globals[r->nglobals++] = (rd_sym){.name = name, .val = one};
  }
  return true;
}

/* `if __name__ == "__main__":` (a test file's tvm.testing.main()): not run
 * when the module is read, as TVM's parser does not run it */
static bool main_guard(rd *r, TSNode s) {
  if (!rd_is(s, "if_statement")) return false;
  TSNode c = rd_unparen(rd_field(s, "condition"));
  if (!rd_is(c, "comparison_operator") || rd_child_count(c) != 2) return false;
  TSNode x = rd_child(c, 0), y = rd_child(c, 1);
  if (rd_is(x, "string")) {
    TSNode t = x;
    x = y;
    y = t;
  }
  const char *ys = rd_is(y, "string") ? rd_text(r, y) : "";
  return rd_is(x, "identifier") && !strcmp(rd_text(r, x), "__name__") &&
         (!strcmp(ys, "\"__main__\"") || !strcmp(ys, "'__main__'")) && strstr(rd_text(r, c), "==");
}

static bool type_var(rd *r, TSNode s) {
  TSNode a = rd_child(s, 0);
  if (!rd_is(s, "expression_statement") || !rd_is(a, "assignment")) return false;
  TSNode lhs = rd_field(a, "left"), rhs = rd_field(a, "right");
  if (!rd_is(lhs, "identifier") || !rd_is(rhs, "call") || !ts_node_is_null(rd_field(a, "type"))) return false;
  const char *fn = rd_text(r, rd_field(rhs, "function"));
  if (strcmp(fn, "TypeVar") && strcmp(fn, "typing.TypeVar")) return false;
  const char *name = rd_text(r, lhs);
  TSNode args = rd_field(rhs, "arguments");
  TSNode a0 = rd_child(args, 0);
  if (rd_child_count(args) != 1 || !rd_is(a0, "string")) {
    tir_error(r->d, rd_span(rhs), "a symbolic TypeVar takes only its name: %s = TypeVar(\"%s\")", name, name);
    return true;
  }
  rval v = rd_eval(r, a0);
  if (v.k == RV_ERR) return true;
  if (strcmp(v.s, name)) {
    tir_error(r->d, rd_span(a0), "TypeVar binding '%s' must match its declared name '%s'", name, v.s);
    return true;
  }
  if (r->ntypevars == r->captypevars) {
    r->captypevars = r->captypevars ? 2 * r->captypevars : 8;
    r->typevars = realloc(r->typevars, sizeof *r->typevars * (size_t)r->captypevars);
    if (!r->typevars) abort();
  }
  r->typevars[r->ntypevars++] = name;
  return true;
}

/* the module's TypeVars that def's signature names (outside attributes;
 * in strings too), not its parameters: int64 vars, in scope for it */
static bool names_word(const char *t, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(t, w); p; p = strstr(p + 1, w)) {
    bool before = p > t && (p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                            (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
    char c = p[n];
    bool after = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!before && !after) return true;
  }
  return false;
}

static void signature_type_vars(rd *r, TSNode def) {
  if (!r->ntypevars) return;
  TSNode ps = rd_field(def, "parameters"), rt = rd_field(def, "return_type");
  uint32_t cnt = rd_child_count(ps);
  for (int k = 0; k < r->ntypevars; k++) {
    const char *tv = r->typevars[k];
    bool used = !ts_node_is_null(rt) && names_word(rd_text(r, rt), tv), param = false;
    for (uint32_t i = 0; i < cnt; i++) {
      TSNode p = rd_child(ps, i);
      if (!rd_is(p, "typed_parameter") && !rd_is(p, "typed_default_parameter")) continue;
      param |= !strcmp(rd_text(r, rd_child(p, 0)), tv);
      used |= names_word(rd_text(r, rd_field(p, "type")), tv);
    }
    if (!used || param) continue;
    tir_expr *e = tir_var(r->c, tv, TIR_INT64);
    e->span = rd_span(def);
    rd_push_sym(r, tv, rv_expr(e, e->span));
    r->syms[r->nsyms - 1].free_decl = true;
    r->syms[r->nsyms - 1].from_shape = true;
  }
}

/* T.Buffer(...), T.Buffer[...], T.handle, T.int32 ... */
static bool param(rd *r, rd_func *fn, const char *name, TSNode type, tir_span sp) {
  TSNode t = rd_child(type, 0);
  int i = fn->nparams;
  fn->bufmap[i] = NULL;
  if (rd_is(t, "call") || rd_is(t, "subscript")) {
    bool is_call = rd_is(t, "call");
    const char *tn = rd_t_name(r, is_call ? rd_field(t, "function") : rd_field(t, "value"));
    if (tn && !strcmp(tn, "Buffer")) {
      rd_args a;
      if (is_call) {
        rd_predeclare_shape_names(r, rd_field(t, "arguments"));
        if (!rd_eval_call_args(r, t, &a)) return false;
      } else {
        memset(&a, 0, sizeof a);
        rval v = rd_eval(r, rd_child(t, 1));
        TSNode s2 = rd_child(t, 2);
        a.pos = tir_alloc(r->c, sizeof *a.pos * 2);
        a.pos[a.npos++] = v;
        if (!ts_node_is_null(s2)) a.pos[a.npos++] = rd_eval(r, s2);
        if (v.k == RV_ERR || (a.npos > 1 && a.pos[1].k == RV_ERR)) return false;
      }
      a.sp = rd_span(t);
      tir_buffer *b = rd_buffer_from_args(r, name, &a, 0, "Buffer");
      if (!b) return false;
      fn->params[i] = tir_var(r->c, name, TIR_HANDLE);
      fn->bufmap[i] = b;
      fn->nparams++;
      rd_push_sym(r, name, (rval){.k = RV_BUFFER, .buf = b, .sp = sp});
      return true;
    }
    if (tn && ((is_call && (!strcmp(tn, "handle") || !strcmp(tn, "Ptr") || !strcmp(tn, "ptr") ||
                            !strcmp(tn, "buffer_var"))) ||
               (!is_call && !strcmp(tn, "Ptr")))) {
      /* T.handle("float32", "global"), T.Ptr("float32"), T.ptr("float32"), T.Ptr[T.float32, "shared"],
       * T.buffer_var("float32") (TVM's deprecated spellings of T.handle): a typed pointer */
      rd_args a;
      if (is_call && !rd_eval_call_args(r, t, &a)) return false;
      if (!is_call) {
        uint32_t n = rd_child_count(t);
        memset(&a, 0, sizeof a);
        a.pos = tir_alloc(r->c, sizeof *a.pos * (n + 1));
        for (uint32_t k = 1; k < n; k++) {
          TSNode c = rd_child(t, k);
          if (rd_is_extra(c)) continue;
          if ((a.pos[a.npos++] = rd_eval(r, c)).k == RV_ERR) return false;
        }
        if (a.npos == 1 && a.pos[0].k == RV_TUPLE) a = (rd_args){.pos = a.pos[0].items, .npos = a.pos[0].n};
      }
      rval *dt = rd_arg(&a, 0, "dtype"), *sc = rd_arg(&a, 1, "storage_scope");
      tir_dtype elem;
      if (a.npos > 2 || (dt && !rd_parse_dtype(r, *dt, &elem))) {
        if (a.npos > 2) tir_error(r->d, rd_span(t), "T.handle expects (dtype, storage_scope)");
        return false;
      }
      const char *scope = sc ? rd_as_str(r, *sc, "the storage scope") : "global";
      if (!scope) return false;
      tir_expr *v = tir_var(r->c, name, TIR_HANDLE);
      if (dt) {
        v->u.var.ptr_elem = elem;
        v->u.var.ptr_scope = tir_strdup(r->c, scope);
      }
      v->span = sp;
      fn->params[i] = v;
      fn->nparams++;
      rd_push_sym(r, name, rv_expr(v, sp));
      return true;
    }
  }
  rval v = rd_eval(r, t);
  if (v.k == RV_ERR) return false;
  tir_dtype dt;
  if (v.k == RV_HANDLE_T) dt = TIR_HANDLE;
  else if (v.k == RV_DTYPE) dt = v.dt;
  else if (v.k == RV_FRESH && rd_is(t, "call") && ts_node_named_child_count(rd_field(t, "arguments")) == 0)
    dt = v.dt; /* x: T.int32(): TVM takes the new var's dtype */
  else {
    tir_error(r->d, rd_span(t), "a parameter type must be T.Buffer(...), T.handle or a dtype such as T.int32");
    return false;
  }
  rd_sym *made = rd_lookup(r, name);
  if (made && made->from_shape && made->val.k == RV_EXPR && made->val.e->kind == TIR_VAR &&
      tir_dtype_eq(made->val.e->dtype, dt)) { /* a shape string before it made it: the same var */
    made->from_shape = made->free_decl = false;
    fn->params[i] = made->val.e;
    fn->nparams++;
    return true;
  }
  fn->params[i] = tir_var(r->c, name, dt);
  fn->params[i]->span = sp;
  fn->nparams++;
  rd_push_sym(r, name, rv_expr(fn->params[i], sp));
  return true;
}

static bool params(rd *r, rd_func *fn, TSNode ps, bool method) {
  uint32_t cnt = rd_child_count(ps);
  fn->params = tir_alloc(r->c, sizeof *fn->params * (cnt + 1));
  fn->bufmap = tir_alloc(r->c, sizeof *fn->bufmap * (cnt + 1));
  tir_strmap seen = {0}; /* the names so far */
  bool ok = true;
  fn->sig_names = tir_alloc(r->c, sizeof *fn->sig_names * (cnt + 1));
  fn->sig_dts = tir_alloc(r->c, sizeof *fn->sig_dts * (cnt + 1));
  for (uint32_t i = 0; i < cnt; i++) { /* T.int64 and the like; T.handle is none */
    TSNode p = rd_child(ps, i), t;
    if (!rd_is(p, "typed_parameter") && !rd_is(p, "typed_default_parameter")) continue;
    t = rd_child(rd_field(p, "type"), 0);
    const char *tn = rd_is(t, "attribute") ? rd_t_name(r, t) : NULL;
    tir_dtype dt;
    if (tn && strcmp(tn, "handle") && tir_dtype_parse(tn, &dt) && tir_dtype_is_int(dt)) {
      fn->sig_names[fn->nsig] = rd_text(r, rd_child(p, 0));
      fn->sig_dts[fn->nsig++] = dt;
    }
  }
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode p = rd_child(ps, i);
    if (rd_is_extra(p)) continue;
    if (method && i == 0 && rd_is(p, "identifier") && !strcmp(rd_text(r, p), "self")) continue;
    if (rd_is(p, "typed_default_parameter")) /* TVM's parser reads the annotation and drops the default */
      tir_warning(r->d, rd_span(rd_field(p, "value")), "the default value of parameter '%s' is ignored, as TVM ignores it",
                  rd_text(r, rd_child(p, 0)));
    else if (!rd_is(p, "typed_parameter")) {
      tir_error(r->d, rd_span(p),
                rd_is(p, "default_parameter") ? "every parameter needs a type annotation such as T.Buffer(...) or "
                                                "T.int32 (a default value alone gives it none)"
                                              : "every parameter needs a type annotation such as T.Buffer(...) or T.int32");
      ok = false;
      continue;
    }
    TSNode id = rd_child(p, 0);
    const char *name = rd_text(r, id);
    long *n = tir_strmap_at(&seen, name, 0);
    if ((*n)++) {
      tir_error(r->d, rd_span(id), "duplicate parameter '%s'", name);
      ok = false;
      continue;
    }
    ok = param(r, fn, name, rd_field(p, "type"), rd_span(id)) && ok;
  }
  tir_strmap_free(&seen);
  return ok;
}

static tir_func *prim_func(rd *r, TSNode def, TSNode dec_call, bool method) {
  tir_func *f = tir_alloc(r->c, sizeof *f);
  rd_func fn = {.f = f};
  fn.root.is_root = true;
  f->name = rd_text(r, rd_field(def, "name"));
  f->span = rd_span(def);
  if (rd_py_keyword(f->name)) {
    tir_error(r->d, rd_span(rd_field(def, "name")), "'%s' is a Python keyword: it cannot be a name", f->name);
    return NULL;
  }
  f->ret_type = TIR_VOID;
  int before = r->d->nerrors;
  r->fn = &fn;
  int nmacros = r->nmacros; /* the macros its body defines end with it */
  r->blk = NULL;
  rd_pop_syms(r, 0);
  rd_push_globals(r, r->nglobals);
  r->frame = r->nsyms; /* the parameters and the body: one scope, inside the module's */
  r->nloops = 0;
  /* `-> T.int32` (TVM's ret_type; `-> None` is none) */
  TSNode rt = rd_field(def, "return_type");
  if (!ts_node_is_null(rt) && rd_is(rt, "type") && rd_child_count(rt) == 1) rt = rd_child(rt, 0);
  bool rt_ok = true;
  if (!ts_node_is_null(rt) && strcmp(rd_text(r, rt), "None")) {
    rval v = rd_eval(r, rt);
    if (v.k == RV_DTYPE) f->ret_type = v.dt, f->ret_void_written = v.dt.bits == 0;
    else if (v.k == RV_HANDLE_T) f->ret_type = TIR_HANDLE; /* -> T.handle */
    else if (v.k != RV_ERR) {
      tir_error(r->d, rd_span(rt), "a prim_func's return annotation must be a dtype (-> T.int32) or None");
      rt_ok = false;
    } else
      rt_ok = false;
  }
  rd_chunk_begin(r, def);
  signature_type_vars(r, def);
  if (r->d->nerrors == before && rt_ok && prim_func_flags(r, dec_call, &fn) &&
      params(r, &fn, rd_field(def, "parameters"), method)) {
    fn.root.body = rd_field(def, "body");
    r->fn_nest = r->nest + 1;
    tir_stmt *body = rd_stmts(r, fn.root.body, 0);
    if (body) f->body = rd_finish_root(r, body);
  }
  rd_chunk_end(r);
  r->fn = NULL;
  r->nmacros = nmacros;
  rd_pop_syms(r, 0);
  if (r->d->nerrors > before || !f->body) return NULL;
  f->params = fn.params;
  f->nparams = fn.nparams;
  f->buffer_map = fn.bufmap;
  if (!r->tirx || fn.explicit_s_tir) f->s_tir = true;
  if (fn.persistent && !tir_av_get(f->attrs, "tirx.persistent_kernel"))
    f->attrs = rd_av_set(r, f->attrs, "tirx.persistent_kernel", tir_av_expr(r->c, tir_bool(r->c, true)));
  return f;
}

static void add_func(rd *r, tir_module *m, tir_func *f, TSNode def) {
  if (!f) return;
  if (rd_name_seen(r, f->name)) {
    tir_error(r->d, rd_span(rd_field(def, "name")), "duplicate function '%s'", f->name);
    return;
  }
  tir_module_add(r->c, m, f);
}

/* @T.macro / @T.macro(hygienic=False) def m(params): body -- TVMScript's
 * macro, expanded where a statement calls it (rd_macro_call) */
static void macro_def_as(rd *r, TSNode def, TSNode call, bool hygienic, bool top);
static void macro_def(rd *r, TSNode def, TSNode call) { macro_def_as(r, def, call, true, true); }

/* @T.macro or @T.inline defined in a function's body (TVM 0.27's T.inline
 * binds late, from the scope it is defined in: read as a macro that sees
 * its caller's names); it lasts to the function's end */
bool rd_local_macro(rd *r, TSNode s) {
  TSNode def = rd_field(s, "definition"), dec = ts_node_named_child(s, 0), call;
  bool inl = decorator_is(r, dec, "inline", &call);
  if (!rd_is(def, "function_definition") || (!inl && !decorator_is(r, dec, "macro", &call))) {
    tir_error(r->d, rd_span(s), "a definition in a function's body is read only as @T.inline or @T.macro");
    return false;
  }
  if (r->ck.cur) {
    tir_error(r->d, rd_span(s), "@T.%s defined in a function body read in chunks (longer than 32 KiB) is not supported",
              inl ? "inline" : "macro");
    return false;
  }
  int before = r->d->nerrors;
  macro_def_as(r, def, call, !inl, false);
  return r->d->nerrors == before;
}

static void macro_def_as(rd *r, TSNode def, TSNode call, bool hygienic, bool top) {
  if (!ts_node_is_null(call)) {
    rd_args a;
    int mark = r->nsyms;
    if (top) rd_push_globals(r, r->nglobals); /* @T.macro(hygienic=H): the module's names (a body's are in scope) */
    bool ok = rd_eval_call_args(r, call, &a);
    rd_pop_syms(r, mark);
    if (!ok) return;
    for (int i = 0; i < a.nkw; i++)
      if (strcmp(a.kw[i], "hygienic") || a.kwv[i].k != RV_BOOL) {
        tir_error(r->d, a.kwsp[i], "@T.macro takes hygienic=True or False only");
        return;
      } else
        hygienic = a.kwv[i].i;
    if (a.npos) {
      tir_error(r->d, a.pos[0].sp, "@T.macro takes hygienic=True or False only");
      return;
    }
  }
  if (rd_chunk_planned(r, def)) {
    tir_error(r->d, rd_span(def), "a T.macro whose body is longer than the reader's chunk (32 KiB) is not supported");
    return;
  }
  const char *name = rd_text(r, rd_field(def, "name"));
  TSNode ps = rd_field(def, "parameters");
  uint32_t n = rd_child_count(ps);
  for (uint32_t i = 0; i < n; i++) {
    TSNode p = rd_child(ps, i);
    if (rd_is_extra(p)) continue;
    bool star = rd_is(p, "list_splat_pattern") || rd_is(p, "dictionary_splat_pattern");
    if (star && !rd_is(rd_child(p, 0), "identifier")) star = false;
    if (!rd_is(p, "identifier") && !rd_is(p, "typed_parameter") && !rd_is(p, "default_parameter") &&
        !rd_is(p, "typed_default_parameter") && !rd_is(p, "keyword_separator") && !star) {
      tir_error(r->d, rd_span(p), "a T.macro's parameters are names, with defaults or not, *args or **kwargs");
      return;
    }
  }
  if (r->nmacros == r->capmacros) {
    r->capmacros = r->capmacros ? r->capmacros * 2 : 8;
    r->macros = realloc(r->macros, sizeof *r->macros * (size_t)r->capmacros);
    if (!r->macros) abort();
  }
  /* appended: rd_macro_of finds the latest (one defined again is the later
   * one, as in Python, while a hygienic macro defined between the two still
   * sees the earlier; a body's own is dropped at the function's end) */
  r->macros[r->nmacros++] = (struct rd_macro){name, ps, rd_field(def, "body"), hygienic, 0, r->nglobals, ++r->macro_seq};
  /* `m = 3` then `@T.macro def m`: the def rebinds the module's name, as
   * Python's (the later binding wins): bound again, to the macro */
  bool bound = false;
  for (int i = 0; top && i < r->nglobals && !bound; i++) bound = !strcmp(r->globals[i].name, name);
  if (bound && r->nglobals < MAX_GLOBALS) {
    if (r->nglobals == r->capglobals) {
      r->capglobals = r->capglobals ? 2 * r->capglobals : 8;
      r->globals = realloc(r->globals, sizeof *r->globals * (size_t)r->capglobals);
      if (!r->globals) abort();
    }
    r->globals[r->nglobals++] = (rd_sym){.name = name, .val = {.k = RV_MACRO, .i = r->nmacros - 1, .sp = rd_span(def)}};
  }
}

/* With no import line at all, read as TVM's from_source does: T is tirx's
 * script namespace and I is ir's. */
static bool need_import(rd *r, TSNode at) {
  (void)at;
  if (r->d->nerrors) return false; /* a bad import line was reported */
  if (!r->t_alias) {
    r->t_alias = "T";
    r->tirx = true;
  }
  if (!r->i_alias) r->i_alias = "I";
  return true;
}

/* a def line of a class read in chunks, for its name and return type
 * before the function is parsed: `def NAME(...) -> RET:`; false when the
 * line is not that simple (the function is then not callable as Module.f
 * before it is read, and a call of it is an error) */
static bool def_line_of(rd *r, const struct rd_def_line *l, struct rd_gfunc *g) {
  const char *s = r->src;
  uint32_t i = l->first + 3, e = l->end;
  while (i < e && (s[i] == ' ' || s[i] == '\t')) i++;
  uint32_t n0 = i;
  while (i < e && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                   (s[i] >= '0' && s[i] <= '9')))
    i++;
  uint32_t n1 = i;
  while (i < e && (s[i] == ' ' || s[i] == '\t')) i++;
  if (n1 == n0 || i >= e || s[i] != '(') return false;
  g->name = tir_strndup(r->c, s + n0, n1 - n0);
  g->ret = (TSNode){0};
  g->ret_len = 0;
  /* the parameters' closing parenthesis, then `-> RET` up to the `:` */
  int depth = 0;
  char q = 0;
  for (; i < e; i++) {
    char c = s[i];
    if (q) {
      if (c == '\\') i++;
      else if (c == q) q = 0;
      continue;
    }
    if (c == '"' || c == '\'') q = c;
    else if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && --depth == 0) break;
  }
  if (i >= e) return false;
  i++;
  while (i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\\' || s[i] == '\n' || s[i] == '\r')) i++;
  if (i < e && s[i] == ':') return true; /* no return type: void */
  if (i + 1 >= e || s[i] != '-' || s[i + 1] != '>') return false;
  i += 2;
  while (i < e && (s[i] == ' ' || s[i] == '\t')) i++;
  uint32_t r0 = i, r1 = i;
  depth = 0;
  q = 0;
  for (; i < e; i++) {
    char c = s[i];
    if (q) {
      if (c == '\\') i++;
      else if (c == q) q = 0;
      r1 = i + 1;
      continue;
    }
    if (c == '"' || c == '\'') q = c;
    else if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') depth--;
    else if (c == '\n' || c == '#') return false;
    else if (c == ':' && depth == 0) break;
    if (c != ' ' && c != '\t') r1 = i + 1;
  }
  if (i >= e || r1 == r0) return false;
  if (r1 - r0 == 4 && !memcmp(s + r0, "None", 4)) return true; /* `-> None`: void, as prim_func reads it */
  /* its position: the def's row, the column from the line's start */
  uint32_t col = 0;
  for (uint32_t x = l->start; x < r0; x++) col = s[x] == '\n' ? 0 : col + 1;
  g->ret_at = r0;
  g->ret_len = r1 - r0;
  g->ret_pt = (TSPoint){l->srow, col};
  return true;
}

/* the text of s, a statement of a class body, from its line's start on,
 * each line that starts with s's indentation re-indented to 4 spaces (the
 * printer's class body), any other kept as it is; each line ends in a
 * newline.  NULL (an error) where s does not start its line. */
/* the column Python gives the indentation of the line [i, e) (a tab to
 * the next multiple of 8, a form feed back to 0), its end in *ws */
static int indent_col(const rd *r, uint32_t i, uint32_t e, uint32_t *ws) {
  int col = 0;
  for (; i < e && (r->src[i] == ' ' || r->src[i] == '\t' || r->src[i] == '\f'); i++)
    col = r->src[i] == '\t' ? (col / 8 + 1) * 8 : r->src[i] == '\f' ? 0 : col + 1;
  *ws = i;
  return col;
}

static const char *class_text(rd *r, TSNode s, const char *what) {
  uint32_t a = ts_node_start_byte(s), b = ts_node_end_byte(s), ls = a;
  while (ls > 0 && r->src[ls - 1] != '\n') ls--;
  for (uint32_t i = ls; i < a; i++)
    if (r->src[i] != ' ' && r->src[i] != '\t') {
      tir_error(r->d, rd_span(s), "%s must start its line", what);
      return NULL;
    }
  /* the strings of more than one line: a line that starts inside one is
   * part of its value, kept byte for byte */
  uint32_t *str = NULL, nstr = 0, capstr = 0;
  {
    TSTreeCursor cur = ts_tree_cursor_new(s);
    for (;;) {
      TSNode n = ts_tree_cursor_current_node(&cur);
      if (rd_is(n, "string") || rd_is(n, "concatenated_string")) {
        if (ts_node_start_point(n).row != ts_node_end_point(n).row) {
          if (nstr + 2 > capstr) {
            capstr = capstr ? 2 * capstr : 16;
            str = realloc(str, sizeof *str * capstr);
            if (!str) abort();
          }
          str[nstr++] = ts_node_start_byte(n);
          str[nstr++] = ts_node_end_byte(n);
        }
      } else if (ts_tree_cursor_goto_first_child(&cur)) {
        continue;
      }
      bool up = false;
      while (!ts_tree_cursor_goto_next_sibling(&cur))
        if (!ts_tree_cursor_goto_parent(&cur) || ts_node_eq(ts_tree_cursor_current_node(&cur), s)) {
          up = true;
          break;
        }
      if (up) break;
    }
    ts_tree_cursor_delete(&cur);
  }
  /* room: a line gains at most 4 spaces and its newline, a tab at most 8 */
  size_t plen = a - ls, cap = 14 * (size_t)(b - ls) + 24;
  /* a class body of 4 spaces is copied as it is; any other is re-indented:
   * each line indented at least as far as the decorator gets 4 + (its
   * indentation's column - the decorator's) spaces, columns counted as
   * Python counts them, so that tabs can make no new inconsistency
   * (TabError); a line indented less (a comment, a line continued inside
   * brackets) is kept as it is */
  bool reindent = plen != 4 || memcmp(r->src + ls, "    ", 4);
  uint32_t pws;
  int pcol = indent_col(r, ls, a, &pws);
  char *out = tir_alloc(r->c, cap), *o = out;
  uint32_t k = 0; /* the first string (pair) that may hold the line */
  for (uint32_t i = ls, ws; i < b;) {
    uint32_t e = i;
    while (e < b && r->src[e] != '\n') e++;
    while (k < nstr && str[k + 1] <= i) k += 2;
    bool in_string = k < nstr && str[k] < i;
    bool blank = !in_string;
    for (uint32_t j = i; j < e && blank; j++) blank = r->src[j] == ' ' || r->src[j] == '\t' || r->src[j] == '\r';
    if (in_string) {
      memcpy(o, r->src + i, e - i);
      o += e - i;
    } else if (blank) {
      /* nothing but the newline */
    } else if (!reindent) {
      memcpy(o, r->src + i, e - i);
      o += e - i;
    } else if (indent_col(r, i, e, &ws) >= pcol) {
      int sp = 4 + (indent_col(r, i, e, &ws) - pcol);
      uint32_t j = ws;
      memset(o, ' ', (size_t)sp);
      o += sp;
      memcpy(o, r->src + j, e - j);
      o += e - j;
    } else {
      memcpy(o, r->src + i, e - i);
      o += e - i;
    }
    *o++ = '\n';
    i = e + 1;
  }
  *o = 0;
  free(str);
  return out;
}

/* `I.module_attrs({...})` / `I.module_global_infos({...})` in a class body:
 * s is that call (true), its dict kept in *slot (errors reported); global
 * infos are lists of I.vdevice(...), kept as written */
static bool module_dict_stmt(rd *r, TSNode s, const char *name, tir_attr_val **slot) {
  if (!rd_is(s, "expression_statement") || !rd_is(rd_child(s, 0), "call") ||
      !rd_is_i_name(r, rd_field(rd_child(s, 0), "function"), name))
    return false;
  TSNode call = rd_child(s, 0);
  bool infos = !strcmp(name, "module_global_infos");
  if (infos) {
    /* TVM 0.27's other global infos, a Relax device mesh and the dummy
     * one, are not tirc's: such a statement is kept as its text */
    uint32_t a0 = ts_node_start_byte(s), a1 = ts_node_end_byte(s);
    bool text = false;
    for (uint32_t i = a0; i < a1 && !text; i++)
      text = (a1 - i > 19 && !memcmp(r->src + i, "R.dist.device_mesh(", 19)) ||
             (a1 - i > 20 && !memcmp(r->src + i, "I.dummy_global_info(", 20));
    if (text) {
      if (*slot || r->global_infos_text) tir_error(r->d, rd_span(call), "I.%s is given twice", name);
      else r->global_infos_text = class_text(r, s, "I.module_global_infos");
      return true;
    }
    if (r->global_infos_text) {
      tir_error(r->d, rd_span(call), "I.%s is given twice", name);
      return true;
    }
  }
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return true;
  bool ok = a.npos == 1 && !a.nkw && a.pos[0].k == RV_DICT;
  for (int i = 0; ok && infos && i < a.pos[0].n; i++) {
    rval *l = &a.pos[0].items[i];
    ok = l->k == RV_TUPLE;
    for (int j = 0; ok && j < l->n; j++) ok = l->items[j].k == RV_ATTR && l->items[j].av->kind == TIR_AV_VDEVICE;
  }
  if (!ok)
    tir_error(r->d, rd_span(call), infos ? "I.%s expects one dict of lists of I.vdevice(...)" : "I.%s expects one dict",
              name);
  else if (*slot)
    tir_error(r->d, rd_span(call), "I.%s is given twice", name);
  else
    *slot = rd_as_attr(r, a.pos[0]);
  return true;
}

/* an @R.function of a class (s, its decorated definition), kept as its
 * text (tir_text_func): its lines from the decorator's on, each line that
 * starts with the decorator's indentation re-indented to 4 spaces (the
 * printer's class body), any other kept as it is */
static void text_func(rd *r, tir_module *m, TSNode s, const char *kind) {
  TSNode def = rd_field(s, "definition");
  const char *name = rd_text(r, rd_field(def, "name"));
  if (rd_name_seen(r, name)) {
    tir_error(r->d, rd_span(rd_field(def, "name")), "duplicate function '%s'", name);
    return;
  }
  const char *out = class_text(r, s, kind);
  if (!out) return;
  if (m->ntext_funcs == r->cap_text_funcs) { /* doubling: in the arena, the old array is left there */
    r->cap_text_funcs = r->cap_text_funcs ? 2 * r->cap_text_funcs : 4;
    tir_text_func *n = tir_alloc(r->c, sizeof *n * (size_t)r->cap_text_funcs);
    if (m->ntext_funcs) memcpy(n, m->text_funcs, sizeof *n * (size_t)m->ntext_funcs);
    m->text_funcs = n;
  }
  m->text_funcs[m->ntext_funcs++] = (tir_text_func){
      .name = name, .kind = tir_strdup(r->c, kind), .text = out, .before = m->nfuncs, .span = rd_span(s)};
}

/* a definition under more than one decorator: TVM applies each (a second
 * one on a prim_func or a module changes what it is); refused by name at
 * the second.  true when s has one decorator */
static bool one_decorator(rd *r, TSNode s) {
  uint32_t cnt = rd_child_count(s), seen = 0;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(s, i);
    if (!rd_is(c, "decorator")) continue;
    if (++seen == 2) {
      tir_error(r->d, rd_span(c), "a second decorator ('%s') on one definition is not supported",
                rd_text(r, c));
      return false;
    }
  }
  return true;
}

static void class_def(rd *r, tir_module *m, TSNode cls) {
  m->name = rd_text(r, rd_field(cls, "name"));
  TSNode body = rd_field(cls, "body");
  uint32_t cnt = rd_child_count(body);
  int before = r->d->nerrors;
  const rd_chunk_plan *plan = rd_class_begin(r, cls);
  if (r->d->nerrors > before) return;
  /* the functions a body may call as Module.f(...), before any is read */
  r->cls_name = m->name;
  free(r->gfuncs);
  tir_strmap_free(&r->gfunc_index);
  r->gfuncs = calloc(plan ? (size_t)plan->ndefs + 1 : cnt ? cnt : 1, sizeof *r->gfuncs);
  r->ngfuncs = 0;
  if (!r->gfuncs) abort();
  if (plan) /* the body is not all parsed yet: its def lines, from the source */
    for (int i = 0; i < plan->ndefs; i++) {
      struct rd_gfunc g = {0};
      if (def_line_of(r, &plan->defs[i], &g)) r->gfuncs[r->ngfuncs++] = g;
    }
  for (uint32_t i = 0; !plan && i < cnt; i++) {
    TSNode s = rd_child(body, i), call;
    if (rd_is(s, "decorated_definition") && decorator_is(r, rd_child(s, 0), "prim_func", &call) &&
        rd_is(rd_field(s, "definition"), "function_definition")) {
      TSNode def = rd_field(s, "definition");
      TSNode rt = rd_field(def, "return_type"); /* `-> None` is void, as prim_func reads it */
      if (!ts_node_is_null(rt) && !strcmp(rd_text(r, rt), "None")) rt = (TSNode){0};
      r->gfuncs[r->ngfuncs++] = (struct rd_gfunc){.name = rd_text(r, rd_field(def, "name")), .ret = rt};
    }
  }
  for (int i = 0; i < r->ngfuncs; i++) /* the first of a name wins */
    if (r->gfuncs[i].name) tir_strmap_at(&r->gfunc_index, r->gfuncs[i].name, i);
  for (;;) {
    for (uint32_t i = 0; i < cnt; i++) {
      TSNode s = rd_child(body, i);
      TSNode call;
      if (rd_is_extra(s) || rd_is(s, "pass_statement")) continue;
      if (rd_is(s, "expression_statement") && rd_is(rd_child(s, 0), "string")) continue;
      if (module_dict_stmt(r, s, "module_attrs", &m->attrs) ||
          module_dict_stmt(r, s, "module_global_infos", &m->global_infos))
        continue;
      if (rd_is(s, "decorated_definition") && !one_decorator(r, s)) continue;
      if (rd_is(s, "decorated_definition") && decorator_is(r, rd_child(s, 0), "prim_func", &call) &&
          rd_is(rd_field(s, "definition"), "function_definition")) {
        TSNode def = rd_field(s, "definition");
        add_func(r, m, prim_func(r, def, call, true), def);
        continue;
      }
      TSNode dn = rd_is(s, "decorated_definition") ? rd_child(rd_child(s, 0), 0) : (TSNode){0};
      if (!ts_node_is_null(dn) && rd_is(dn, "call")) dn = rd_field(dn, "function");
      const char *dt = ts_node_is_null(dn) ? "" : rd_text(r, dn);
      if (!strcmp(dt, "R.function") && rd_is(rd_field(s, "definition"), "function_definition"))
        text_func(r, m, s, dt);
      else if (!strncmp(dt, "R.", 2))
        tir_error(r->d, rd_span(s), "@%s is a Relax function: tirc reads TIR only (@T.prim_func)", dt);
      else
        tir_error(r->d, rd_span(s), "an @I.ir_module class may hold only @T.prim_func functions");
    }
    if (!plan) break;
    body = rd_class_next(r); /* the next chunk of the body, the one before freed */
    if (ts_node_is_null(body)) break;
    cnt = rd_child_count(body);
  }
  if (plan) rd_class_end(r);
  m->global_infos_text = r->global_infos_text;
  /* the TypeVars a Relax function's text names: written back before the
   * class, where the text still needs them */
  size_t len = 0, cap = 0;
  char *tv = NULL;
  for (int k = 0; k < r->ntypevars; k++) {
    bool named = false;
    for (int j = 0; j < k && !named; j++) named = !strcmp(r->typevars[j], r->typevars[k]); /* declared again */
    if (named) continue;
    for (int i = 0; i < m->ntext_funcs && !named; i++) named = names_word(m->text_funcs[i].text, r->typevars[k]);
    if (!named) continue;
    size_t need = len + 2 * strlen(r->typevars[k]) + 20;
    if (need > cap) {
      cap = 2 * need;
      char *nt = tir_alloc(r->c, cap);
      if (len) memcpy(nt, tv, len);
      tv = nt;
    }
    len += (size_t)sprintf(tv + len, "%s = TypeVar(\"%s\")\n", r->typevars[k], r->typevars[k]);
  }
  m->type_vars_text = tv;
}

static void top_level(rd *r, tir_module *m, TSNode root, bool *saw_module) {
  uint32_t cnt = ts_node_named_child_count(root);
  /* beside a decorated function or module, an undecorated def is a Python
   * helper, which TVM's parser does not read */
  bool decorated = false;
  for (uint32_t i = 0; i < cnt && !decorated; i++) {
    TSNode s = ts_node_named_child(root, i);
    if (!rd_is(s, "decorated_definition")) continue;
    TSNode dec = ts_node_named_child(s, 0), de = ts_node_named_child(dec, 0);
    TSNode dn = rd_is(de, "call") ? rd_field(de, "function") : de;
    const char *dt = rd_text(r, dn); /* the imports are not read yet: by its last name */
    const char *dot = strrchr(dt, '.');
    dt = dot ? dot + 1 : dt;
    decorated = !strcmp(dt, "prim_func") || !strcmp(dt, "ir_module");
  }
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode s = ts_node_named_child(root, i);
    if (rd_is(s, "comment")) { commented_import(r, s); continue; }
    if (rd_is(s, "import_from_statement")) { import_from(r, s); continue; }
    if (rd_is(s, "import_statement")) continue;
    if (rd_is(s, "future_import_statement")) { /* TVM's parser takes this one (annotations are not evaluated) */
      bool only = ts_node_named_child_count(s) == 1 && !strcmp(rd_text(r, ts_node_named_child(s, 0)), "annotations");
      if (!only) tir_error(r->d, rd_span(s), "only 'from __future__ import annotations' is supported (as TVM's parser)");
      continue;
    }
    if (rd_is(s, "expression_statement") && rd_is(ts_node_named_child(s, 0), "string")) continue;
    if (rd_is(s, "decorated_definition")) {
      TSNode def = rd_field(s, "definition"), dec = ts_node_named_child(s, 0), call;
      if (!need_import(r, s)) return;
      if (!one_decorator(r, s)) continue;
      if (rd_is(def, "function_definition") && decorator_is(r, dec, "prim_func", &call)) {
        add_func(r, m, prim_func(r, def, call, false), def);
        continue;
      }
      if (rd_is(def, "function_definition") &&
          (decorator_is(r, dec, "macro", &call) || decorator_is(r, dec, "inline", &call))) { /* T.inline: TVM 0.27's */
        macro_def(r, def, call);
        continue;
      }
      TSNode de = ts_node_named_child(dec, 0);
      TSNode dn = rd_is(de, "call") ? rd_field(de, "function") : de;
      const char *dt = rd_text(r, dn);
      /* @I.ir_module, and TVM's other spellings @tvm.script.ir_module / @script.ir_module /
       * @tvm.script.ir.ir_module */
      bool ir_module = rd_is_i_name(r, dn, "ir_module") || !strcmp(dt, "tvm.script.ir_module") ||
                       !strcmp(dt, "script.ir_module") || !strcmp(dt, "tvm.script.ir.ir_module");
      if (rd_is(def, "class_definition") && ir_module) {
        if (*saw_module || m->nfuncs) {
          tir_error(r->d, rd_span(s), "only one @I.ir_module per file");
          return;
        }
        *saw_module = true;
        if (rd_is(de, "call") && !module_flags(r, de, m)) return;
        class_def(r, m, def);
        continue;
      }
      const char *tn = rd_t_name(r, rd_is(de, "call") ? rd_field(de, "function") : de);
      static const char *const decos[] = {"prim_func", NULL};
      const char *near = tn ? tir_suggest(tn, decos, -1) : NULL;
      if (near) tir_error(r->d, rd_span(de), "unknown name 'T.%s'; did you mean 'T.%s'?", tn, near);
      else if (tn) tir_error(r->d, rd_span(de), "unknown name 'T.%s'", tn);
      else if (!strncmp(dt, "R.", 2))
        tir_error(r->d, rd_span(dec), "@%s is Relax: tirc reads TIR only (an @R.function inside an @I.ir_module "
                                      "class is kept as its text)", dt);
      else tir_error(r->d, rd_span(dec), "unknown decorator: expected @T.prim_func or @I.ir_module");
      continue;
    }
    if (rd_is(s, "function_definition")) {
      /* TVM's CompareBeforeAfter tests write `def before(A: T.Buffer(...)):`
       * and `def expected(...)` undecorated, and its harness reads each as
       * "@T.prim_func\n" + its dedented source: so does tirc, saying so */
      if (decorated) {
        const char *fname = rd_text(r, rd_field(s, "name"));
        static const char *const builtin[] = {"max", "min", "abs", "int", "float", "bool", "len", "sum", "range", NULL};
        bool rebinds = false;
        for (int i = 0; builtin[i] && !rebinds; i++) rebinds = !strcmp(fname, builtin[i]);
        for (int i = 0; i < r->nmacros && !rebinds; i++) rebinds = !strcmp(fname, r->macros[i].name);
        if (rebinds) { /* Python binds the name to it for what follows: TVM's parser would call it */
          tir_error(r->d, rd_span(rd_field(s, "name")),
                    "'%s' is a Python function that rebinds the name '%s' for the functions after it (TVM's "
                    "parser would call it); tirc does not run Python functions",
                    fname, fname);
          continue;
        }
        tir_warning(r->d, rd_span(s),
                    "'%s' has no decorator: a Python function beside the decorated ones, not read (as TVM's parser "
                    "reads only those)",
                    rd_text(r, rd_field(s, "name")));
        continue;
      }
      if (!need_import(r, s)) return;
      tir_warning(r->d, rd_span(s),
                  "'%s' has no decorator: read as @T.prim_func, as TVM's CompareBeforeAfter harness reads its "
                  "before/expected functions",
                  rd_text(r, rd_field(s, "name")));
      add_func(r, m, prim_func(r, s, (TSNode){0}, false), s);
      continue;
    }
    if (rd_is(s, "class_definition")) {
      tir_error(r->d, rd_span(s), "expected @I.ir_module before this class");
      continue;
    }
    if (type_var(r, s)) continue;
    if (module_const(r, s)) continue;
    if (main_guard(r, s)) {
      /* a module that is read (imported) runs its else or elif */
      TSNode alt = rd_field(s, "alternative");
      if (!ts_node_is_null(alt))
        tir_error(r->d, rd_span(alt), "the else of `if __name__ == \"__main__\":` runs where the module is imported; "
                                      "tirc does not run module-level statements");
      continue;
    }
    tir_error(r->d, rd_span(s), "unexpected top-level statement");
  }
}

/* Python folds every name by NFKC before it compares names ('ｉ' and 'ℹ'
 * are the name 'i'); tirc does not fold.  A non-ASCII character in a name is
 * read only from blocks where NFKC leaves every character, and every
 * sequence of them, as it is (Latin, Greek and Cyrillic letters, kana, CJK
 * ideographs, Hangul syllables, less the few of them with a compatibility
 * form: checked against Python's unicodedata); any other is refused by name,
 * as two spellings of one Python name would be two variables here.  The tree
 * is walked only when the text holds a non-ASCII byte at all. */
static bool nfkc_stable(uint32_t c) {
  static const uint32_t ok[][2] = {{0xC0, 0xD6},     {0xD8, 0xF6},     {0xF8, 0x131},    {0x134, 0x13E},
                                   {0x141, 0x148},   {0x14A, 0x17E},   {0x180, 0x1C3},   {0x1CD, 0x1F0},
                                   {0x1F4, 0x24F},   {0x386, 0x386},   {0x388, 0x38A},   {0x38C, 0x38C},
                                   {0x38E, 0x3A1},   {0x3A3, 0x3CE},   {0x400, 0x481},   {0x48A, 0x4FF},
                                   {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (c >= ok[i][0] && c <= ok[i][1]) return true;
  return false;
}

/* a definition decorated @R.function or @R.function(...) */
static bool relax_function(rd *r, TSNode dd) {
  TSNode dec = rd_child(dd, 0);
  if (ts_node_is_null(dec) || !rd_is(dec, "decorator")) return false;
  TSNode dn = rd_child(dec, 0);
  if (!ts_node_is_null(dn) && rd_is(dn, "call")) dn = rd_field(dn, "function");
  uint32_t a = ts_node_start_byte(dn), b = ts_node_end_byte(dn);
  return b - a == 10 && !memcmp(r->src + a, "R.function", 10);
}

static bool non_ascii_name(rd *r, TSNode root) {
  if (!r->non_ascii) { /* once per text, not per chunk */
    r->non_ascii = 1;
    for (size_t i = 0; i < r->len && r->non_ascii == 1; i++)
      if ((unsigned char)r->src[i] >= 0x80) r->non_ascii = 2;
  }
  if (r->non_ascii == 1) return false;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  bool bad = false;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (rd_is(n, "identifier")) {
      uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
      for (uint32_t i = a; i < b && i < r->len && !bad;) {
        uint32_t c;
        size_t l = utf8_decode((const unsigned char *)r->src + i, r->len - i, &c);
        if (!l) l = 1; /* not met: the text was checked valid */
        if (c >= 0x80 && !nfkc_stable(c)) {
          tir_error(r->d, rd_span(n), "name '%.*s': its character U+%04X may be another spelling of a name "
                                      "(Python folds names by NFKC: 'ｉ' is 'i'), which tirc does not do; "
                                      "write the name in ASCII",
                    (int)(b - a), r->src + a, (unsigned)c);
          bad = true;
        }
        i += (uint32_t)l;
      }
      if (bad) break;
    } else if (rd_is(n, "string") || rd_is(n, "comment")) {
      /* no name inside */
    } else if (rd_is(n, "decorated_definition") && relax_function(r, n)) {
      /* kept as its text (text_func): TVM reads its names as written */
    } else if (ts_tree_cursor_goto_first_child(&cur)) {
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cur))
      if (!ts_tree_cursor_goto_parent(&cur)) goto done;
  }
done:
  ts_tree_cursor_delete(&cur);
  return bad;
}

bool rd_tree_errors(rd *r, TSNode root) {
  return syntax_errors(r, root) || statements_run_together(r, root) || non_ascii_name(r, root);
}

/* tree-sitter's error recovery is superlinear on some malformed input
 * (18,000 `< x` after an import take 7 s, twice as many four times that):
 * a parse gets 2 s plus 5 us a byte, over ten times what a valid input of
 * that size needs here, and past it the input is refused */
uint64_t rd_parse_budget(size_t bytes) { return 2000000u + 5u * (uint64_t)bytes; }

/* a statement list longer than this is read in chunks of about CHUNK_BYTES
 * (tree-sitter's tree is about 50 bytes a byte of input).  Small chunks
 * are also the fastest: the read of 4,000 stages (3.6 MB) takes 0.82 s of
 * CPU in chunks of 2-8 KiB, 1.25 s in chunks of 256 KiB and 1.05 s whole
 * (a tree that stays in the cache, and a heap that does not grow).  The
 * environment variable TIR_READ_CHUNK_BYTES sets both, for tests. */
enum { CHUNK_THRESHOLD = 32 << 10, CHUNK_BYTES = 8 << 10 };

/* A function copied out of a class or a test, every line indented as its
 * first: TVM's parser reads a decorated function's source with its first
 * line's indentation taken from every line (tvm.script's Source), so tirc
 * does too.  The prefix is the whitespace before the first line of code;
 * a line of code (or of a multi-line string) that does not start with it
 * is an error (its line in *bad_line); a blank or comment line loses what
 * it has of it.  Returns the dedented copy (malloc'd; NULL when the first
 * line of code is not indented, or on the error) and the prefix's length
 * in *k. */
static char *dedent(const char *src, size_t len, size_t *out_len, int *k, int *bad_line) {
  size_t i = 0, pre = 0;
  while (i < len) { /* the first line of code */
    size_t j = i;
    while (j < len && (src[j] == ' ' || src[j] == '\t')) j++;
    if (j < len && src[j] != '\n' && src[j] != '\r' && src[j] != '#') {
      pre = j - i;
      break;
    }
    while (j < len && src[j] != '\n') j++;
    i = j + 1;
  }
  if (!pre || pre > 255) return NULL;
  const char *prefix = src + i;
  char *out = malloc(len + 1);
  if (!out) abort(); /* out of memory is not bad input */
  size_t o = 0;
  int line = 1;
  for (size_t at = 0; at < len; line++) {
    size_t e = at;
    while (e < len && src[e] != '\n') e++;
    size_t ws = at;
    while (ws < e && (src[ws] == ' ' || src[ws] == '\t') && ws - at < pre) ws++;
    bool code = ws < e && src[ws] != '\r' && src[ws] != '#';
    if (code && (ws - at < pre || memcmp(src + at, prefix, pre))) {
      free(out);
      *bad_line = line;
      return NULL;
    }
    size_t from = code ? at + pre : ws;
    memcpy(out + o, src + from, e - from);
    o += e - from;
    if (e < len) out[o++] = '\n';
    at = e + 1;
  }
  *out_len = o;
  *k = (int)pre;
  return out;
}

tir_module *tir_parse(tir_ctx *c, const char *src, size_t len, tir_diag *d) {
  return tir_parse_ex(c, src, len, NULL, d);
}

tir_module *tir_parse_ex(tir_ctx *c, const char *src, size_t len, const tir_parse_opts *o, tir_diag *d) {
  bool oob_errors = o && o->oob_access_errors;
  if (!src) len = 0;
  if (!check_input(src ? src : "", len, d)) return NULL;
  if (len > UINT32_MAX / 2) {
    tir_error(d, NO_SPAN, "input too large");
    return NULL;
  }
  int shift = 0, bad_line = 0;
  size_t dlen = 0;
  char *ded = src ? dedent(src, len, &dlen, &shift, &bad_line) : NULL;
  if (bad_line) {
    tir_error(d, ((tir_span){bad_line, 1}),
              "this line is indented less than the first line of code: an indented function's lines must all start "
              "with its first line's indentation (TVM's parser strips it from each)");
    return NULL;
  }
  if (ded) src = ded, len = dlen;
  rd_set_col_shift(shift);
  rd_set_line_continuations(src ? src : "", len);
  rd r = {.c = c, .d = d, .src = src ? src : "", .len = len, .gen_errors = oob_errors};
  size_t threshold = CHUNK_THRESHOLD, target = CHUNK_BYTES;
  const char *env = getenv("TIR_READ_CHUNK_BYTES");
  long env_bytes = env ? strtol(env, NULL, 10) : 0;
  if (env_bytes > 0) threshold = target = (size_t)env_bytes;
  rd_lines lines = {0};
  bool chunk = len > threshold;
  int laid = d->n;
  bool layout_ok = rd_check_layout(r.src, r.len, d, chunk ? &lines : NULL);
  for (int i = laid; i < d->n; i++)
    if (d->items[i].span.line > 0) d->items[i].span.col += shift;
  if (!layout_ok) {
    free(lines.v);
    free(ded);
    rd_set_col_shift(0);
    rd_set_line_continuations("", 0);
    return NULL;
  }
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  r.ck.parser = p;
  if (chunk && rd_chunk_plan_make(&r, &lines, threshold, target)) {
    uint32_t n;
    TSRange *ranges = rd_chunk_first_ranges(&r, &n);
    if (!ts_parser_set_included_ranges(p, ranges, n)) rd_chunks_free(&r); /* not expected: read it whole */
    free(ranges);
  }
  free(lines.v);
  uint64_t budget = rd_parse_budget(len);
  ts_parser_set_timeout_micros(p, budget);
  TSTree *tree = ts_parser_parse_string(p, NULL, r.src, (uint32_t)len);
  if (!tree) {
    tir_error(d, FIRST,
              "the parser gave up on this input after %.1f s: it is not valid Python (tree-sitter's error recovery "
              "takes time superlinear in the length of some malformed lines)",
              (double)budget / 1e6);
    rd_chunks_free(&r);
    ts_parser_delete(p);
    free(ded);
    rd_set_col_shift(0);
    rd_set_line_continuations("", 0);
    return NULL;
  }
  r.ck.tree0 = tree;
  rd_lc_main_tree(tree);
  tir_module *m = tir_module_new(c, NULL);
  int before = d->nerrors;
  TSNode root = ts_tree_root_node(tree);
  bool saw_module = false;
  if (!rd_tree_errors(&r, root)) top_level(&r, m, root, &saw_module);
  /* an @I.ir_module of no function is a module (what TVM's Filter pass
   * leaves of a host-only pipeline); no definition at all is an error */
  if (d->nerrors == before && m->nfuncs == 0 && !saw_module)
    tir_error(d, FIRST, "no @T.prim_func in the input");
  /* accesses that certainly run out of bounds are errors of the input */
  for (int i = 0; i < m->nfuncs && d->nerrors == before; i++) tir_check_bounds_ex(m->funcs[i], d, oob_errors);
  if (r.match_an) tir_analyzer_free(r.match_an);
  tir_ptrmap_free(&r.thread_ext);
  tir_ptrmap_free(&r.env_tags);
  rd_free_syms(&r);
  tir_ptrmap_free(&r.const_tuples);
  free(r.typevars);
  free(r.globals);
  free(r.gfuncs);
  tir_strmap_free(&r.gfunc_index);
  if (r.sub_parser) ts_parser_delete(r.sub_parser);
  free(r.loops);
  free(r.intern);
  free(r.fnames);
  free(r.macros);
  rd_tmp_free(&r);
  rd_chunks_free(&r);
  rd_free_children(&r);
  ts_tree_delete(tree);
  ts_parser_delete(p);
  free(ded);
  rd_set_col_shift(0);
  rd_set_line_continuations("", 0); /* frees its lists */
  return d->nerrors > before ? NULL : m;
}
