/* reader_syntax.c - the layout checks tree-sitter does not make (or reports
 * vaguely), with Python's own messages: brackets ("'(' was never closed",
 * "unmatched ')'", mismatched closers), unterminated strings, and
 * indentation ("unexpected indent", "expected an indented block",
 * "unindent does not match any outer indentation level").  One pass over
 * the bytes, as Python's tokenizer makes it; the first error is reported. */
#include <stdlib.h>
#include <string.h>

#include "script/reader.h"

#define MAX_DEPTH 200
/* 63 nested blocks: what the printer can write back at 4 columns a level
 * within the 255 columns tree-sitter-python's scanner can hold (it keeps
 * each indentation in a byte) */
#define MAX_INDENT 64
#define MAX_INDENT_WIDTH 255

typedef struct lx {
  const char *s;
  size_t n, i;
  int line, col; /* of s[i] */
  tir_diag *d;
  char open[MAX_DEPTH];
  tir_span open_at[MAX_DEPTH];
  int depth;
  int indents[MAX_INDENT];
  int nind;
  bool want_block;  /* the last logical line ended with ':' */
  tir_span colon_at;
  char last;        /* last significant char of the logical line */
  tir_span last_at;
  bool compound;    /* the logical line starts with for/if/with/def ... */
  rd_lines *out;    /* where the logical lines go, or NULL */
  bool in_line;     /* a logical line is open (recorded in out) */
  bool from_line; /* the logical line starts with `from` */
} lx;

static void adv(lx *x) {
  if (x->s[x->i] == '\n') x->line++, x->col = 1;
  else x->col++;
  x->i++;
}

static tir_span here(const lx *x) { return (tir_span){x->line, x->col}; }

static bool fail(lx *x, tir_span sp, const char *msg, char a, char b) {
  if (b) tir_error(x->d, sp, msg, a, b);
  else if (a) tir_error(x->d, sp, msg, a);
  else tir_error(x->d, sp, "%s", msg);
  return false;
}

/* a string literal starting at the quote s[i] */
static bool skip_string(lx *x) {
  char q = x->s[x->i];
  tir_span at = here(x);
  bool triple = x->i + 2 < x->n && x->s[x->i + 1] == q && x->s[x->i + 2] == q;
  for (int k = 0; k < (triple ? 3 : 1); k++) adv(x);
  while (x->i < x->n) {
    char c = x->s[x->i];
    if (c == '\\' && x->i + 1 < x->n) {
      adv(x);
      adv(x);
      continue;
    }
    if (c == '\n' && !triple) break;
    if (c == q && (!triple || (x->i + 2 < x->n && x->s[x->i + 1] == q && x->s[x->i + 2] == q))) {
      for (int k = 0; k < (triple ? 3 : 1); k++) adv(x);
      return true;
    }
    adv(x);
  }
  return fail(x, at, triple ? "unterminated triple-quoted string literal" : "unterminated string literal", 0, 0);
}

static char opener_of(char c) { return c == ')' ? '(' : c == ']' ? '[' : '{'; }

static bool bracket(lx *x, char c) {
  if (c == '(' || c == '[' || c == '{') {
    if (x->depth == MAX_DEPTH) return fail(x, here(x), "too many nested parentheses", 0, 0);
    x->open[x->depth] = c;
    x->open_at[x->depth++] = here(x);
    return true;
  }
  if (x->depth == 0) return fail(x, here(x), "unmatched '%c'", c, 0);
  char o = x->open[x->depth - 1];
  if (o != opener_of(c)) return fail(x, here(x), "closing parenthesis '%c' does not match opening parenthesis '%c'", c, o);
  x->depth--;
  return true;
}

/* the indentation of a new logical line at s[i] (column of its first token) */
static bool indentation(lx *x, int width) {
  tir_span at = here(x);
  int top = x->indents[x->nind - 1];
  if (x->want_block) {
    x->want_block = false;
    if (width <= top) return fail(x, at, "expected an indented block", 0, 0);
    if (x->nind == MAX_INDENT) return fail(x, at, "too many levels of indentation", 0, 0);
    if (width > MAX_INDENT_WIDTH) return fail(x, at, "indentation too deep: more than 255 columns", 0, 0);
    x->indents[x->nind++] = width;
    return true;
  }
  if (width > top && x->compound) {
    tir_span sp = x->last_at;
    sp.col++;
    return fail(x, sp, "syntax error: expected ':'", 0, 0);
  }
  if (width > top) return fail(x, at, "unexpected indent", 0, 0);
  while (width < x->indents[x->nind - 1]) x->nind--;
  if (width != x->indents[x->nind - 1])
    return fail(x, at, "unindent does not match any outer indentation level", 0, 0);
  return true;
}

static bool starts_compound(const char *s, size_t n) {
  static const char *const kw[] = {"for", "while", "if", "elif", "else", "with", "def", "class", NULL};
  for (int i = 0; kw[i]; i++) {
    size_t l = strlen(kw[i]);
    if (l < n && !strncmp(s, kw[i], l) && (s[l] == ' ' || s[l] == '(' || s[l] == ':' || s[l] == '\t'))
      return true;
  }
  return false;
}

/* the word w at s, with n bytes left (the input is not NUL-terminated) */
static bool word_at(const char *s, size_t n, const char *w) {
  size_t wl = strlen(w);
  if (wl > n || memcmp(s, w, wl)) return false;
  if (wl == n) return true;
  char c = s[wl];
  return !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80);
}

/* what kind of statement a logical line starting at s (n bytes left) begins */
static int line_kind(const char *s, size_t n) {
  if (*s == '@') return RD_LINE_DECOR;
  if (word_at(s, n, "def")) return RD_LINE_DEF;
  if (word_at(s, n, "class")) return RD_LINE_CLASS;
  if (word_at(s, n, "with")) return RD_LINE_WITH;
  static const char *const compound[] = {"for", "while", "if", "try", "async", NULL};
  for (int i = 0; compound[i]; i++)
    if (word_at(s, n, compound[i])) return RD_LINE_COMPOUND;
  static const char *const cont[] = {"elif", "else", "except", "finally", NULL};
  for (int i = 0; cont[i]; i++)
    if (word_at(s, n, cont[i])) return RD_LINE_CONT;
  return RD_LINE_SIMPLE;
}

/* the start of a physical line outside brackets: blank and comment lines
 * do not count; returns false on an indentation error */
static bool line_start(lx *x) {
  int width = 0;
  while (x->i < x->n && (x->s[x->i] == ' ' || x->s[x->i] == '\t' || x->s[x->i] == '\f')) {
    /* a form feed starts the count again, as Python's tokenizer does */
    width = x->s[x->i] == '\t' ? (width / 8 + 1) * 8 : x->s[x->i] == '\f' ? 0 : width + 1;
    adv(x);
  }
  if (x->i >= x->n || x->s[x->i] == '\n' || x->s[x->i] == '\r' || x->s[x->i] == '#') return true;
  if (!indentation(x, width)) return false;
  x->compound = starts_compound(x->s + x->i, x->n - x->i);
  x->from_line = word_at(x->s + x->i, x->n - x->i, "from");
  if (x->out) {
    rd_lines *o = x->out;
    if (o->n == o->cap) {
      o->cap = o->cap ? o->cap * 2 : 256;
      o->v = realloc(o->v, sizeof *o->v * o->cap);
      if (!o->v) abort(); /* out of memory is not bad input */
    }
    size_t first = x->i;
    size_t start = first - (size_t)(x->col - 1);
    o->v[o->n++] = (rd_line){.start = (uint32_t)start, .first = (uint32_t)first, .srow = (uint32_t)(x->line - 1),
                             .indent = width, .kind = line_kind(x->s + first, x->n - first)};
    x->in_line = true;
  }
  return true;
}

/* the logical line being recorded ends before s[i] */
static void close_line(lx *x) {
  if (!x->in_line) return;
  rd_line *l = &x->out->v[x->out->n - 1];
  l->end = (uint32_t)x->i;
  l->erow = (uint32_t)(x->line - 1);
  l->ecol = (uint32_t)(x->col - 1);
  x->in_line = false;
}

/* a logical line ends (outside brackets, not after '\\'): one that ends in
 * a binary operator is cut in the middle of an expression.  tree-sitter
 * would join it with the next line and report that one, or read the two as
 * one expression and report a name of the next line as undefined. */
static bool end_logical_line(lx *x) {
  bool op = x->last && strchr("+-*/%&|^<>=~@", x->last) && !(x->last == '*' && x->from_line); /* from m import * */
  if (op)
    return fail(x, x->last_at,
                "syntax error: the line ends after the operator '%c' (an expression continues on the next line "
                "only inside brackets or after a backslash)",
                x->last, 0);
  x->want_block = x->last == ':';
  x->last = 0;
  return true;
}

bool rd_check_layout(const char *src, size_t len, tir_diag *d, rd_lines *lines) {
  lx x = {.s = src, .n = len, .line = 1, .col = 1, .d = d, .nind = 1, .out = lines};
  bool at_line_start = true;
  while (x.i < x.n) {
    if (at_line_start && x.depth == 0) {
      if (!line_start(&x)) return false;
      at_line_start = false;
      continue;
    }
    char c = x.s[x.i];
    if (c == '#') {
      while (x.i < x.n && x.s[x.i] != '\n') adv(&x);
      continue;
    }
    if (c == '\\' && x.i + 1 < x.n && (x.s[x.i + 1] == '\n' || x.s[x.i + 1] == '\r')) {
      adv(&x);
      if (x.s[x.i] == '\r') adv(&x);
      if (x.i < x.n && x.s[x.i] == '\n') adv(&x);
      continue;
    }
    if (c == '\n') {
      adv(&x);
      if (x.depth == 0) {
        if (x.last && !end_logical_line(&x)) return false;
        close_line(&x);
        at_line_start = true;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      if (!skip_string(&x)) return false;
      x.last = c;
      x.last_at = here(&x);
      x.last_at.col--; /* the closing quote */
      continue;
    }
    if (strchr("()[]{}", c) && !bracket(&x, c)) return false;
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f') x.last = c, x.last_at = here(&x);
    adv(&x);
  }
  if (x.depth > 0) {
    tir_error(d, x.open_at[x.depth - 1], "'%c' was never closed", x.open[x.depth - 1]);
    return false;
  }
  if (x.last && !end_logical_line(&x)) return false;
  close_line(&x);
  if (x.want_block) {
    tir_error(d, here(&x), "expected an indented block at the end of the input");
    return false;
  }
  return true;
}
