/* reader_scope.c - the reader's symbol table (Python-like scopes: names map
 * to values, innermost first), loops in scope, spans and node text. */
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "script/reader.h"

/* the columns the reader's dedent took from every line (rd_dedent), added
 * back to each span so that diagnostics point into the text as given */
static _Thread_local int col_shift;

void rd_set_col_shift(int k) { col_shift = k; }

tir_span rd_span(TSNode n) {
  TSPoint p = ts_node_start_point(n);
  return (tir_span){(int)p.row + 1, (int)p.column + 1 + col_shift};
}

/* texts of up to INTERN_MAX bytes (names, numbers, dtype strings: most of
 * what is read) are copied into the arena once each; a name met a million
 * times costs one copy (callers never write to the text) */
enum { INTERN_MAX = 64 };

static uint32_t text_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* the slot of s (len bytes) in an open-addressed table of n strings
 * (grown first, from first_cap): the equal string's, or the empty one to
 * put it in */
static const char **str_slot(const char ***tab, size_t *cap, size_t n, const char *s, size_t len, size_t first_cap) {
  if (2 * (n + 1) > *cap) {
    size_t nc = *cap ? *cap * 2 : first_cap;
    const char **t = calloc(nc, sizeof *t);
    if (!t) abort(); /* out of memory is not bad input */
    for (size_t i = 0; i < *cap; i++)
      if ((*tab)[i]) {
        size_t k = text_hash((*tab)[i], strlen((*tab)[i])) & (nc - 1);
        while (t[k]) k = (k + 1) & (nc - 1);
        t[k] = (*tab)[i];
      }
    free(*tab);
    *tab = t;
    *cap = nc;
  }
  size_t k = text_hash(s, len) & (*cap - 1);
  for (const char *e; (e = (*tab)[k]); k = (k + 1) & (*cap - 1))
    if (!strncmp(e, s, len) && e[len] == 0) break;
  return &(*tab)[k];
}

const char *rd_text(rd *r, TSNode n) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  if (b > r->len) b = (uint32_t)r->len;
  if (a > b) a = b;
  size_t len = b - a;
  const char *s = r->src + a;
  if (len > INTERN_MAX) return tir_strndup(r->c, s, len);
  const char **slot = str_slot(&r->intern, &r->capintern, r->nintern, s, len, 1024);
  if (!*slot) {
    *slot = tir_strndup(r->c, s, len);
    r->nintern++;
  }
  return *slot;
}

/* a comment or a backslash line continuation: tree-sitter's extras, which
 * stand among any node's children */
bool rd_is_extra(TSNode n) { return rd_is(n, "comment") || rd_is(n, "line_continuation"); }

/* whether the text read holds a backslash line continuation: only then do
 * rd_child and rd_child_count look for one among a node's children, each
 * node's children listed once (lc_kids, by node; a node of a chunk's tree
 * freed since is told apart by its tree) */
static _Thread_local bool has_lc;
typedef struct { const void *tree; const void *kids_of; TSNode *kids; uint32_t n; } lc_entry;
static _Thread_local tir_ptrmap lc_index;
static _Thread_local lc_entry *lc_kids;
static _Thread_local long lc_n, lc_cap;

static _Thread_local const void *lc_main; /* the whole text's tree */
static _Thread_local long lc_nsub;        /* entries of other trees (chunks, shape strings) */

static void lc_clear(void) {
  for (long i = 0; i < lc_n; i++) free(lc_kids[i].kids);
  free(lc_kids);
  lc_kids = NULL;
  lc_n = lc_cap = lc_nsub = 0;
  tir_ptrmap_free(&lc_index);
}

void rd_lc_main_tree(const TSTree *t) { lc_main = t; }

/* forgets the lists of tree t's nodes: called before t is deleted (a new
 * tree may take its memory, and its nodes their ids) */
void rd_lc_forget(const TSTree *t) {
  if (!lc_nsub) return;
  long w = 0;
  tir_ptrmap_free(&lc_index);
  lc_nsub = 0;
  for (long i = 0; i < lc_n; i++) {
    if (lc_kids[i].tree == t) {
      free(lc_kids[i].kids);
      continue;
    }
    lc_kids[w] = lc_kids[i];
    tir_ptrmap_put(&lc_index, lc_kids[w].kids_of, w);
    lc_nsub += lc_kids[w].tree != lc_main;
    w++;
  }
  lc_n = w;
}

void rd_set_line_continuations(const char *src, size_t len) {
  lc_clear();
  lc_main = NULL;
  has_lc = false;
  for (const char *p = len ? memchr(src, '\\', len) : NULL; p && !has_lc;
       p = memchr(p + 1, '\\', len - (size_t)(p + 1 - src))) {
    size_t at = (size_t)(p - src);
    has_lc = (at + 1 < len && src[at + 1] == '\n') || (at + 2 < len && src[at + 1] == '\r' && src[at + 2] == '\n');
    if (at + 1 >= len) break;
  }
}

static const lc_entry *lc_children(TSNode n) {
  long k = tir_ptrmap_get(&lc_index, n.id, -1);
  if (k >= 0 && lc_kids[k].tree == n.tree) return &lc_kids[k];
  uint32_t cnt = ts_node_named_child_count(n), m = 0;
  TSNode *kids = malloc(sizeof *kids * (size_t)(cnt + 1));
  if (!kids) abort(); /* out of memory is not bad input */
  TSTreeCursor cur = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cur);
      if (ts_node_is_named(c) && !rd_is(c, "line_continuation") && m < cnt) kids[m++] = c;
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  ts_tree_cursor_delete(&cur);
  if (k < 0) {
    if (lc_n == lc_cap) {
      lc_cap = lc_cap ? 2 * lc_cap : 64;
      lc_kids = realloc(lc_kids, sizeof *lc_kids * (size_t)lc_cap);
      if (!lc_kids) abort();
    }
    k = lc_n++;
    tir_ptrmap_put(&lc_index, n.id, k);
    lc_nsub += n.tree != lc_main;
  } else {
    free(lc_kids[k].kids);
    lc_nsub += (n.tree != lc_main) - (lc_kids[k].tree != lc_main);
  }
  lc_kids[k] = (lc_entry){n.tree, n.id, kids, m};
  return &lc_kids[k];
}

/* the named children of n less its line continuations (`A[0] = T.max(A[1], \
 * A[2])` puts one among the call's arguments); comments are kept */
TSNode rd_child(TSNode n, uint32_t i) {
  if (!has_lc) return ts_node_named_child(n, i);
  const lc_entry *e = lc_children(n);
  return i < e->n ? e->kids[i] : (TSNode){0};
}

uint32_t rd_child_count(TSNode n) {
  if (!has_lc) return ts_node_named_child_count(n);
  return lc_children(n)->n;
}

bool rd_is(TSNode n, const char *type) {
  if (ts_node_is_null(n)) return false;
  const char *t = ts_node_type(n);
  return t[0] == type[0] && !strcmp(t, type); /* most tests fail at the first letter */
}

/* the grammar's field ids by name: tree-sitter finds a field's id by
 * comparing the name with every field's (a tenth of the read went there);
 * this table, made once, finds it with one comparison */
enum { FIELD_SLOTS = 128 };
static struct { const char *name; TSFieldId id; } field_tab[FIELD_SLOTS];
static pthread_once_t field_once = PTHREAD_ONCE_INIT;
const TSLanguage *tree_sitter_python(void);

static unsigned field_hash(const char *s) {
  unsigned h = 5381;
  for (; *s; s++) h = h * 33 + (unsigned char)*s;
  return h;
}

static void field_init(void) {
  const TSLanguage *lang = tree_sitter_python();
  uint32_t n = ts_language_field_count(lang);
  for (TSFieldId id = 1; id <= n; id++) {
    const char *name = ts_language_field_name_for_id(lang, id);
    if (!name) continue;
    unsigned h = field_hash(name);
    for (unsigned k = 0; k < FIELD_SLOTS; k++) {
      unsigned at = (h + k) % FIELD_SLOTS;
      if (!field_tab[at].name) {
        field_tab[at].name = name;
        field_tab[at].id = id;
        break;
      }
    }
  }
}

TSNode rd_field(TSNode n, const char *field) {
  pthread_once(&field_once, field_init);
  unsigned h = field_hash(field);
  for (unsigned k = 0; k < FIELD_SLOTS; k++) {
    unsigned at = (h + k) % FIELD_SLOTS;
    if (!field_tab[at].name) break;
    if (!strcmp(field_tab[at].name, field)) return ts_node_child_by_field_id(n, field_tab[at].id);
  }
  return ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
}

/* the dotted name of an attribute chain rooted at identifier `root` */
static const char *dotted_after(rd *r, TSNode n, const char *root) {
  if (!root || !rd_is(n, "attribute")) return NULL;
  TSNode obj = rd_field(n, "object"), attr = rd_field(n, "attribute");
  if (ts_node_is_null(attr)) return NULL;
  const char *tail = rd_text(r, attr);
  if (rd_is(obj, "identifier")) return strcmp(rd_text(r, obj), root) ? NULL : tail;
  const char *head = dotted_after(r, obj, root);
  if (!head) return NULL;
  size_t hl = strlen(head), tl = strlen(tail);
  char *s = tir_alloc(r->c, hl + tl + 2);
  memcpy(s, head, hl);
  s[hl] = '.';
  memcpy(s + hl + 1, tail, tl + 1);
  return s;
}

/* TVM 0.27's short dtype names (T.i32, T.f16, T.bf16 ...) */
static const char *dtype_alias(const char *s) {
  static const char *const al[][2] = {
      {"i8", "int8"},     {"i16", "int16"},     {"i32", "int32"},     {"i64", "int64"},
      {"u8", "uint8"},    {"u16", "uint16"},    {"u32", "uint32"},    {"u64", "uint64"},
      {"f16", "float16"}, {"f32", "float32"},   {"f64", "float64"},   {"bf16", "bfloat16"},
      {"boolean", "bool"},
      {"buffer_decl", "Buffer"}, /* TVM's deprecated spelling of T.Buffer(...) */
      {"Bind", "bind"},          /* TVM 0.27's two spellings of one function */
      {"smem", "alloc_shared"}}; /* TVM 0.27's alias */
  for (size_t i = 0; s && i < sizeof al / sizeof al[0]; i++)
    if (!strcmp(s, al[i][0])) return al[i][1];
  return s;
}

const char *rd_t_name(rd *r, TSNode n) { return dtype_alias(dotted_after(r, n, r->t_alias)); }

bool rd_is_i_name(rd *r, TSNode n, const char *name) {
  const char *s = dotted_after(r, n, r->i_alias);
  return s && !strcmp(s, name);
}

void *rd_grow(tir_ctx *c, void *arr, int n, int *cap, size_t elem) {
  if (n < *cap) return arr;
  int nc = *cap ? *cap * 2 : 4;
  void *p = tir_alloc(c, elem * (size_t)nc);
  if (n) memcpy(p, arr, elem * (size_t)n);
  *cap = nc;
  return p;
}

static void *grow_heap(void *arr, int n, int *cap, size_t elem) {
  if (n < *cap) return arr;
  int nc = *cap ? *cap * 2 : 32;
  void *p = realloc(arr, elem * (size_t)nc);
  if (!p) abort(); /* out of memory is not bad input */
  *cap = nc;
  return p;
}

/* a Python keyword, which tree-sitter's grammar takes as a name in some
 * places (def while(...), for from in ...) and Python refuses */
bool rd_py_keyword(const char *n) {
  static const char *const KW[] = {"and", "as", "assert", "async", "await", "break", "class", "continue", "def",
                                   "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
                                   "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
                                   "return", "try", "while", "with", "yield", NULL};
  if (!n || n[0] < 'a' || n[0] > 'y') return false;
  for (int i = 0; KW[i]; i++)
    if (!strcmp(n, KW[i])) return true;
  return false;
}

void rd_push_sym(rd *r, const char *name, rval v) {
  if (rd_py_keyword(name)) tir_error(r->d, v.sp, "'%s' is a Python keyword: it cannot be a name", name);
  r->syms = grow_heap(r->syms, r->nsyms, &r->capsyms, sizeof *r->syms);
  long *head = tir_strmap_at(&r->symtab, name, -1);
  r->syms[r->nsyms] = (rd_sym){.name = name, .val = v, .prev = (int)*head};
  *head = r->nsyms++;
}

void rd_pop_syms(rd *r, int mark) {
  for (; r->nsyms > mark; r->nsyms--) {
    const rd_sym *s = &r->syms[r->nsyms - 1];
    *tir_strmap_at(&r->symtab, s->name, -1) = s->prev;
  }
}

void rd_free_syms(rd *r) {
  free(r->syms);
  tir_strmap_free(&r->symtab);
}

/* the module's constants, in scope below a function's (or a hygienic
 * macro's) own names */
void rd_push_globals(rd *r, int upto) {
  for (int i = 0; i < upto && i < r->nglobals; i++) rd_push_sym(r, r->globals[i].name, r->globals[i].val);
}

rd_sym *rd_lookup(rd *r, const char *name) {
  long i = tir_strmap_get(&r->symtab, name, -1);
  /* the innermost binding: a hygienic macro's floor hides the ones below */
  return i >= r->sym_floor ? &r->syms[i] : NULL;
}

/* false (with an error) where name is bound already in the innermost
 * scope: TVM's VarTable binds a name once per frame ("already defined in
 * current scope") and lets an inner scope shadow an outer one; a name
 * whose binding failed stays quiet */
bool rd_fresh(rd *r, const char *name, tir_span sp) {
  rd_sym *s = rd_lookup(r, name);
  if (!s || s - r->syms < r->frame || s->val.k == RV_ERR) return true;
  tir_error(r->d, sp, "'%s' is already defined in this scope: a name is bound once in a scope (TVM refuses the second binding)", name);
  return false;
}

void rd_push_loop(rd *r, tir_expr *var, tir_expr *min, tir_expr *extent) {
  r->loops = grow_heap(r->loops, r->nloops, &r->caploops, sizeof *r->loops);
  r->loops[r->nloops++] = (rd_loop){var, min, extent};
}

rd_loop *rd_find_loop(rd *r, const tir_expr *var) {
  for (int i = r->nloops - 1; i >= 0; i--)
    if (r->loops[i].var == var) return &r->loops[i];
  return NULL;
}

rval rv_err(void) { return (rval){.k = RV_ERR}; }

rval rv_expr(tir_expr *e, tir_span sp) {
  if (!e) return rv_err();
  return (rval){.k = RV_EXPR, .e = e, .sp = sp};
}

const TSNode *rd_named_children(rd *r, TSNode list, uint32_t *n) {
  long k = tir_ptrmap_get(&r->kids_of, list.id, -1);
  if (k < 0 || !r->kids[k].n) {
    uint32_t cnt = ts_node_named_child_count(list), i = 0;
    TSNode *arr = malloc(sizeof *arr * (cnt + 1));
    if (!arr) abort(); /* out of memory is not bad input */
    TSTreeCursor cur = ts_tree_cursor_new(list);
    if (ts_tree_cursor_goto_first_child(&cur)) {
      do {
        TSNode c = ts_tree_cursor_current_node(&cur);
        if (ts_node_is_named(c) && i < cnt) arr[i++] = c;
      } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    if (r->nkids == r->capkids) {
      r->capkids = r->capkids ? r->capkids * 2 : 16;
      r->kids = realloc(r->kids, sizeof *r->kids * (size_t)r->capkids);
      if (!r->kids) abort();
    }
    r->kids[r->nkids] = (struct rd_kids){arr, i, list.tree, list.id};
    k = r->nkids++;
    tir_ptrmap_put(&r->kids_of, list.id, k);
  }
  *n = r->kids[k].cnt;
  return r->kids[k].n;
}

const struct rd_macro *rd_macro_of(rd *r, TSNode fn) {
  if (!r->nmacros || !rd_is(fn, "identifier")) return NULL;
  const char *name = rd_text(r, fn);
  rd_sym *s = rd_lookup(r, name);
  if (s && s->val.k == RV_MACRO && s->val.i >= 0 && s->val.i < r->nmacros) return &r->macros[s->val.i];
  if (s) return NULL;
  for (int i = r->nmacros - 1; i >= 0; i--) /* the latest (one a body defined shadows the module's) */
    if (!strcmp(r->macros[i].name, name) && (!r->macro_vis || r->macros[i].seq < r->macro_vis))
      return &r->macros[i];
  return NULL;
}

bool rd_macro_hidden(rd *r, const char *name) {
  for (int i = 0; r->macro_vis && i < r->nmacros; i++)
    if (!strcmp(r->macros[i].name, name) && r->macros[i].seq >= r->macro_vis) return true;
  return false;
}

bool rd_name_seen(rd *r, const char *name) {
  const char **slot = str_slot(&r->fnames, &r->capfnames, r->nfnames, name, strlen(name), 64);
  if (*slot) return true;
  *slot = name;
  r->nfnames++;
  return false;
}

void rd_free_children_since(rd *r, int from, const TSTree *keep, const TSTree *keep2) {
  for (int i = from; i < r->nkids; i++)
    if (r->kids[i].n && r->kids[i].tree != keep && r->kids[i].tree != keep2) {
      free(r->kids[i].n);
      r->kids[i].n = NULL;
      tir_ptrmap_put(&r->kids_of, r->kids[i].id, -1);
    }
}

void rd_free_children_of(rd *r, int from, const TSTree *tree) {
  for (int i = from; i < r->nkids; i++)
    if (r->kids[i].n && r->kids[i].tree == tree) {
      free(r->kids[i].n);
      r->kids[i].n = NULL;
      tir_ptrmap_put(&r->kids_of, r->kids[i].id, -1);
    }
}

void rd_free_children(rd *r) {
  for (int i = 0; i < r->nkids; i++) free(r->kids[i].n);
  free(r->kids);
  tir_ptrmap_free(&r->kids_of);
  r->kids = NULL;
  r->nkids = r->capkids = 0;
}

/* ---- scratch ----
 * A stack of blocks, bump-allocated; a mark is (block, offset).  Under
 * AddressSanitizer what a release gives back is poisoned, so a use after
 * it is reported as malloc'd memory would be. */

#if defined(__SANITIZE_ADDRESS__)
#define RD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RD_ASAN 1
#endif
#endif
#ifdef RD_ASAN
#include <sanitizer/asan_interface.h>
#define TMP_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define TMP_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define TMP_POISON(p, n) ((void)(p), (void)(n))
#define TMP_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

void *rd_tmp(rd *r, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!size) size = 16;
  while (r->tmpcur < r->ntmpb && r->tmpb[r->tmpcur].size - r->tmpused < size) {
    r->tmpcur++;
    r->tmpused = 0;
  }
  if (r->tmpcur == r->ntmpb) {
    if (r->ntmpb == r->captmpb) {
      r->captmpb = r->captmpb ? r->captmpb * 2 : 8;
      r->tmpb = realloc(r->tmpb, sizeof *r->tmpb * (size_t)r->captmpb);
      if (!r->tmpb) abort(); /* out of memory is not bad input */
    }
    size_t bs = size > 65536 ? size : 65536;
    unsigned char *p = malloc(bs);
    if (!p) abort();
    TMP_POISON(p, bs);
    r->tmpb[r->ntmpb++] = (struct rd_tmpblk){p, bs};
    r->tmpused = 0;
  }
  unsigned char *p = r->tmpb[r->tmpcur].p + r->tmpused;
  r->tmpused += size;
  TMP_UNPOISON(p, size);
  memset(p, 0, size);
  return p;
}

rd_tmp_mark_t rd_tmp_mark(const rd *r) { return (rd_tmp_mark_t){r->tmpcur, r->tmpused}; }

void rd_tmp_release(rd *r, rd_tmp_mark_t m) {
#ifdef RD_ASAN
  for (int b = m.blk; b < r->ntmpb && b <= r->tmpcur; b++) {
    size_t from = b == m.blk ? m.used : 0;
    TMP_POISON(r->tmpb[b].p + from, r->tmpb[b].size - from);
  }
#endif
  r->tmpcur = m.blk;
  r->tmpused = m.used;
}

void rd_tmp_free(rd *r) {
  for (int b = 0; b < r->ntmpb; b++) {
    TMP_UNPOISON(r->tmpb[b].p, r->tmpb[b].size);
    free(r->tmpb[b].p);
  }
  free(r->tmpb);
  r->tmpb = NULL;
  r->ntmpb = r->captmpb = r->tmpcur = 0;
  r->tmpused = 0;
}
