/* reader_chunk.c - reading a long statement list in chunks (see reader.h):
 * the plan, from the logical lines that rd_check_layout records; the
 * first parse's included ranges; the parse of each later chunk, with the
 * header lines around its list, when the reader comes to it. */
#include <stdlib.h>
#include <string.h>

#include "tir/diag.h"
#include "script/reader.h"

const TSLanguage *tree_sitter_python(void);

/* a header: the lines [start, end) of a compound statement's first
 * logical line, its decorators first */
typedef struct head { uint32_t start, end; TSPoint sp, ep; int indent; } head;

static TSRange range_of(head h) { return (TSRange){h.sp, h.ep, h.start, h.end}; }

static head head_of(const rd_lines *L, size_t dec, size_t j) {
  return (head){L->v[dec].start, L->v[j].end, {L->v[dec].srow, 0}, {L->v[j].erow, L->v[j].ecol}, L->v[j].indent};
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) abort(); /* out of memory is not bad input */
  return p;
}

/* `with X.If(...):` (TVM's frame form of an if): its body, a T.Then and a
 * T.Else frame, is one statement to the reader, never a list to cut */
static bool is_if_frame(const rd *r, const rd_line *l) {
  const char *s = r->src + l->first, *e = r->src + l->end;
  if (e - s < 5 || memcmp(s, "with", 4) || (s[4] != ' ' && s[4] != '\t')) return false;
  s += 4;
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  const char *name = s;
  while (s < e && (*s == '_' || *s == '.' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                   (*s >= '0' && *s <= '9')))
    if (*s++ == '.') name = s;
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  return s < e && *s == '(' && s - name >= 2 && !memcmp(name, "If", 2) && (name[2] == '(' || name[2] == ' ' || name[2] == '\t');
}

/* a plan's cut points: chunk k is [at[k], at[k+1]); the first is the list's
 * start, the last (set by cuts_end) its end */
typedef struct cuts {
  uint32_t *at;
  TSPoint *pt;
  size_t n, cap;
} cuts;

static void cuts_add(cuts *c, uint32_t at, TSPoint pt) {
  if (c->n + 1 >= c->cap) { /* room for this one and the end */
    c->cap = c->cap ? c->cap * 2 : 16;
    c->at = xrealloc(c->at, sizeof *c->at * c->cap);
    c->pt = xrealloc(c->pt, sizeof *c->pt * c->cap);
  }
  c->at[c->n] = at;
  c->pt[c->n++] = pt;
}

/* the end at the last line's end, into out; false (and freed) with no cut
 * after the first */
static bool cuts_end(cuts *c, const rd_line *last, rd_chunk_plan *out) {
  if (c->n == 1) {
    free(c->at);
    free(c->pt);
    return false;
  }
  c->at[c->n] = last->end;
  c->pt[c->n] = (TSPoint){last->erow, last->ecol};
  out->cut = c->at;
  out->cutpt = c->pt;
  out->nchunks = (int)c->n;
  return true;
}

/* the plan for the def at line j (decorators from line dec), heads
 * around it; the index of the def's last body line in *last */
static bool plan_def(rd *r, const rd_lines *L, size_t dec, size_t j, const head *around, int naround,
                     size_t threshold, size_t target, rd_chunk_plan *out, size_t *last) {
  const rd_line *v = L->v;
  int d = v[j].indent;
  size_t k = j + 1, e = k;
  *last = j;
  if (k >= L->n || v[k].indent <= d) return false;
  while (e < L->n && v[e].indent > d) e++;
  *last = e - 1;
  /* tabs (or form feeds) in the indentation: tree-sitter's idea of the
   * blocks may differ from the plan's; such a body is read whole */
  for (size_t t = k; t < e; t++)
    for (uint32_t b = v[t].start; b < v[t].first; b++)
      if (r->src[b] != ' ') return false;
  /* a definition in the body (an @T.inline), which the reader keeps to
   * the function's end: such a body is read whole */
  for (size_t t = k; t < e; t++)
    if (v[t].kind == RD_LINE_DECOR) return false;
  head *heads = xrealloc(NULL, sizeof *heads * (size_t)(naround + 2 + (e - k)));
  int nh = 0;
  for (int i = 0; i < naround; i++) heads[nh++] = around[i];
  heads[nh++] = head_of(L, dec, j);
  /* the list: the body, or the body of the one `with` that is all of it */
  int b;
  for (;;) {
    b = v[k].indent;
    int nstmt = 0;
    bool bad = false;
    for (size_t t = k; t < e && !bad; t++) {
      if (v[t].indent < b) bad = true;
      else if (v[t].indent == b && v[t].kind != RD_LINE_CONT) nstmt++;
    }
    if (bad) {
      free(heads);
      return false;
    }
    if (nstmt == 1 && v[k].kind == RD_LINE_WITH && k + 1 < e && v[k + 1].indent > b && !is_if_frame(r, &v[k])) {
      heads[nh++] = head_of(L, k, k);
      k++;
      continue;
    }
    break;
  }
  if (v[e - 1].end - v[k].start <= threshold) {
    free(heads);
    return false;
  }
  /* cut before a statement of the list that follows a compound one */
  cuts c = {0};
  cuts_add(&c, v[k].start, (TSPoint){v[k].srow, 0});
  bool prev_compound = false;
  for (size_t t = k; t < e; t++) {
    if (v[t].indent != b) continue;
    int kind = v[t].kind;
    if (kind == RD_LINE_CONT) continue;
    bool after_decorator = t > k && v[t - 1].kind == RD_LINE_DECOR && v[t - 1].indent == b;
    if (after_decorator) continue; /* the definition of a decorated statement */
    if (t > k && prev_compound && v[t].start - c.at[c.n - 1] >= target) cuts_add(&c, v[t].start, (TSPoint){v[t].srow, 0});
    prev_compound = kind != RD_LINE_SIMPLE;
  }
  if (!cuts_end(&c, &v[e - 1], out)) {
    free(heads);
    return false;
  }
  out->def_at = v[j].first;
  out->head = xrealloc(NULL, sizeof *out->head * (size_t)nh);
  for (int i = 0; i < nh; i++) out->head[i] = range_of(heads[i]);
  out->nhead = nh;
  out->ndescend = nh - naround - 1;
  free(heads);
  return true;
}

/* the plan for the class at line j (decorators from line dec): its body's
 * statements in chunks of about target bytes, cut before any statement
 * (the class body of an @I.ir_module holds functions and simple
 * statements, none of which scopes the statements after it) */
static bool plan_class(rd *r, const rd_lines *L, size_t dec, size_t j, size_t threshold, size_t target,
                       rd_chunk_plan *out) {
  const rd_line *v = L->v;
  int d = v[j].indent;
  size_t k = j + 1, e = k;
  if (d != 0 || k >= L->n || v[k].indent <= d) return false;
  while (e < L->n && v[e].indent > d) e++;
  if (v[e - 1].end - v[k].start <= threshold) return false;
  int b = v[k].indent;
  for (size_t t = k; t < e; t++) {
    if (v[t].indent < b) return false;
    for (uint32_t x = v[t].start; x < v[t].first; x++) /* tabs: as in plan_def, read whole */
      if (r->src[x] != ' ') return false;
  }
  cuts c = {0};
  cuts_add(&c, v[k].start, (TSPoint){v[k].srow, 0});
  int ndefs = 0, capdefs = 16;
  struct rd_def_line *defs = xrealloc(NULL, sizeof *defs * (size_t)capdefs);
  for (size_t t = k; t < e; t++) {
    if (v[t].indent != b || v[t].kind == RD_LINE_CONT) continue;
    if (v[t].kind == RD_LINE_DEF) {
      if (ndefs == capdefs) defs = xrealloc(defs, sizeof *defs * (size_t)(capdefs *= 2));
      defs[ndefs++] = (struct rd_def_line){v[t].start, v[t].first, v[t].end, v[t].srow};
    }
    if (t > k && v[t - 1].kind == RD_LINE_DECOR && v[t - 1].indent == b) continue; /* a decorated definition */
    if (t > k && v[t].start - c.at[c.n - 1] >= target) cuts_add(&c, v[t].start, (TSPoint){v[t].srow, 0});
  }
  if (!cuts_end(&c, &v[e - 1], out)) {
    free(defs);
    return false;
  }
  out->def_at = v[j].first;
  out->head = xrealloc(NULL, sizeof *out->head);
  out->head[0] = range_of(head_of(L, dec, j));
  out->nhead = 1;
  out->ndescend = 0;
  out->cls = true;
  out->defs = defs;
  out->ndefs = ndefs;
  return true;
}

/* a def under `@X.macro` or `@X.macro(...)` (a T.macro, whose body is read
 * where it is called: it stays in the first parse, never chunked) */
/* a def decorated @X.<word> for one of its decorator lines */
static bool decorated_as(const rd *r, const rd_lines *L, size_t dec, size_t j, const char *word) {
  size_t wl = strlen(word);
  for (size_t t = dec; t < j; t++) {
    const char *s = r->src + L->v[t].first, *e = r->src + L->v[t].end;
    if (s >= e || *s != '@') continue;
    s++;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (s < e && (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
      s++;
    if ((size_t)(e - s) > wl && s[0] == '.' && !memcmp(s + 1, word, wl) &&
        (s + 1 + wl == e || s[1 + wl] == '(' || s[1 + wl] == ' ' || s[1 + wl] == '\n' || s[1 + wl] == '\r' ||
         s[1 + wl] == '\t' || s[1 + wl] == '#'))
      return true;
  }
  return false;
}

/* only a @T.prim_func's body is read in chunks: a macro's, and a Relax
 * function's (kept as its text, whole), are read whole */
static bool read_whole(const rd *r, const rd_lines *L, size_t dec, size_t j) {
  return decorated_as(r, L, dec, j, "macro") || !decorated_as(r, L, dec, j, "prim_func");
}

static void add_plan(rd_chunks *ck, int *cap, rd_chunk_plan p) {
  if (ck->nplans == *cap) {
    *cap = *cap ? *cap * 2 : 4;
    ck->plans = xrealloc(ck->plans, sizeof *ck->plans * (size_t)*cap);
  }
  ck->plans[ck->nplans++] = p;
}

bool rd_chunk_plan_make(rd *r, const rd_lines *L, size_t threshold, size_t target) {
  rd_chunks *ck = &r->ck;
  head *stack = NULL;
  int nstack = 0, capstack = 0;
  size_t dec = SIZE_MAX; /* the first of the decorators just before, if any */
  int cap = 0;
  for (size_t j = 0; j < L->n; j++) {
    const rd_line *l = &L->v[j];
    while (nstack && stack[nstack - 1].indent >= l->indent) nstack--;
    int kind = l->kind;
    if (kind == RD_LINE_DECOR) {
      if (dec == SIZE_MAX || L->v[dec].indent != l->indent) dec = j;
      continue;
    }
    size_t from = dec != SIZE_MAX && L->v[dec].indent == l->indent ? dec : j;
    dec = SIZE_MAX;
    if (kind == RD_LINE_DEF && !read_whole(r, L, from, j)) {
      rd_chunk_plan p = {0};
      size_t last;
      if (plan_def(r, L, from, j, stack, nstack, threshold, target, &p, &last)) {
        add_plan(ck, &cap, p);
        j = last; /* no plan within a planned list */
        continue;
      }
    }
    if (kind == RD_LINE_CLASS) { /* its functions may have plans of their own too */
      rd_chunk_plan p = {0};
      if (plan_class(r, L, from, j, threshold, target, &p)) add_plan(ck, &cap, p);
    }
    if (j + 1 < L->n && L->v[j + 1].indent > l->indent) { /* opens a block */
      if (nstack == capstack) {
        capstack = capstack ? capstack * 2 : 16;
        stack = xrealloc(stack, sizeof *stack * (size_t)capstack);
      }
      stack[nstack++] = head_of(L, from, j);
    }
  }
  free(stack);
  return ck->nplans > 0;
}

/* the part of a plan that a parse of the text around it leaves out: its
 * chunks after the first */
typedef struct gap { uint32_t at, end; TSPoint atp, endp; } gap;

static int gap_cmp(const void *a, const void *b) {
  uint32_t x = ((const gap *)a)->at, y = ((const gap *)b)->at;
  return x < y ? -1 : x > y;
}

/* the ranges of [lo, hi) (points lop, hip) without the later chunks of the
 * plans in it, after the nhead ranges of head; the class plan `self` (the
 * one whose chunk this is), if any, is not left out */
static TSRange *ranges_of(const rd_chunks *ck, const TSRange *head, int nhead, uint32_t lo, TSPoint lop, uint32_t hi,
                          TSPoint hip, const rd_chunk_plan *self, uint32_t *n) {
  gap *g = xrealloc(NULL, sizeof *g * (size_t)(ck->nplans + 1));
  int ng = 0;
  for (int i = 0; i < ck->nplans; i++) {
    const rd_chunk_plan *p = &ck->plans[i];
    if (p == self || p->cut[1] < lo || p->cut[1] >= hi) continue;
    g[ng++] = (gap){p->cut[1], p->cut[p->nchunks], p->cutpt[1], p->cutpt[p->nchunks]};
  }
  qsort(g, (size_t)ng, sizeof *g, gap_cmp);
  TSRange *out = xrealloc(NULL, sizeof *out * (size_t)(nhead + ng + 1));
  if (nhead) memcpy(out, head, sizeof *out * (size_t)nhead);
  *n = (uint32_t)nhead;
  uint32_t at = lo;
  TSPoint atp = lop;
  for (int i = 0; i < ng; i++) {
    if (g[i].at < at) continue; /* inside a gap already left out (a function of a class's later chunk) */
    out[(*n)++] = (TSRange){atp, g[i].atp, at, g[i].at};
    at = g[i].end;
    atp = g[i].endp;
  }
  out[(*n)++] = (TSRange){atp, hip, at, hi};
  free(g);
  return out;
}

TSRange *rd_chunk_first_ranges(rd *r, uint32_t *n) {
  return ranges_of(&r->ck, NULL, 0, 0, (TSPoint){0, 0}, UINT32_MAX, (TSPoint){UINT32_MAX, UINT32_MAX}, NULL, n);
}

static TSNode last_stmt(TSNode list) {
  for (uint32_t i = ts_node_named_child_count(list); i-- > 0;) {
    TSNode c = ts_node_named_child(list, i);
    if (!rd_is_extra(c)) return c;
  }
  return (TSNode){0};
}

static TSNode first_stmt(TSNode list) {
  uint32_t cnt = ts_node_named_child_count(list);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_named_child(list, i);
    if (!rd_is_extra(c)) return c;
  }
  return (TSNode){0};
}

/* from a function's body down the `with`s of the plan to its list, which
 * starts on the line at byte `at`; a null node if the tree is not as planned */
static TSNode list_below(rd *r, const rd_chunk_plan *p, TSNode body, uint32_t at) {
  while (at < r->len && (r->src[at] == ' ' || r->src[at] == '\t' || r->src[at] == '\f')) at++;
  for (int i = 0; i < p->ndescend && !ts_node_is_null(body); i++) {
    TSNode w = last_stmt(body);
    body = rd_is(w, "with_statement") ? rd_field(w, "body") : (TSNode){0};
  }
  if (ts_node_is_null(body) || !rd_is(body, "block")) return (TSNode){0};
  TSNode f = first_stmt(body);
  return !ts_node_is_null(f) && ts_node_start_byte(f) == at ? body : (TSNode){0};
}

static tir_span row_span(TSPoint pt) {
  tir_span sp = {(int)pt.row + 1, 1};
  return sp;
}

static void chunk_error(rd *r, const rd_chunk_plan *p, int k) {
  tir_error(r->d, row_span(p->cutpt[k]),
            "internal error: this input could not be read in chunks (set TIR_READ_CHUNK_BYTES to a size larger "
            "than the input to read it whole)");
}

void rd_chunk_begin(rd *r, TSNode def) {
  rd_chunks *ck = &r->ck;
  ck->cur = NULL;
  uint32_t at = ts_node_start_byte(def);
  for (int i = 0; i < ck->nplans; i++)
    if (ck->plans[i].def_at == at && !ck->plans[i].cls) {
      const rd_chunk_plan *p = &ck->plans[i];
      TSNode list = list_below(r, p, rd_field(def, "body"), p->cut[0]);
      if (ts_node_is_null(list)) {
        chunk_error(r, p, 0);
        return;
      }
      ck->cur = p;
      ck->next = 1;
      ck->list0 = ck->list = list;
      return;
    }
}

static void free_trees(rd *r) {
  rd_chunks *ck = &r->ck;
  if (ck->ntrees) rd_free_children_since(r, ck->kids_mark, ck->tree0, ck->cls_tree);
  for (int i = 0; i < ck->ntrees; i++) {
    rd_lc_forget(ck->trees[i]);
    ts_tree_delete(ck->trees[i]);
  }
  ck->ntrees = 0;
}

void rd_chunk_end(rd *r) {
  free_trees(r);
  r->ck.cur = NULL;
}

bool rd_list_continues(rd *r, TSNode list) {
  const rd_chunks *ck = &r->ck;
  return ck->cur && ck->next < ck->cur->nchunks && ts_node_eq(list, ck->list);
}

TSNode rd_list_canon(rd *r, TSNode list) {
  const rd_chunks *ck = &r->ck;
  return ck->cur && ts_node_eq(list, ck->list) ? ck->list0 : list;
}

/* chunk k of plan p parsed over the n ranges given (freed here): its tree,
 * or NULL with the error reported */
static TSTree *parse_chunk(rd *r, const rd_chunk_plan *p, int k, TSRange *ranges, uint32_t n) {
  rd_chunks *ck = &r->ck;
  bool ok = ts_parser_set_included_ranges(ck->parser, ranges, n);
  free(ranges);
  if (!ok) {
    chunk_error(r, p, k);
    return NULL;
  }
  uint64_t budget = rd_parse_budget(p->cut[k + 1] - p->cut[k]);
  ts_parser_set_timeout_micros(ck->parser, budget);
  TSTree *t = ts_parser_parse_string(ck->parser, NULL, r->src, (uint32_t)r->len);
  if (!t)
    tir_error(r->d, row_span(p->cutpt[k]),
              "the parser gave up on this input after %.1f s: it is not valid Python (tree-sitter's error "
              "recovery takes time superlinear in the length of some malformed lines)",
              (double)budget / 1e6);
  return t;
}

TSNode rd_next_chunk(rd *r, bool top) {
  rd_chunks *ck = &r->ck;
  const rd_chunk_plan *p = ck->cur;
  int k = ck->next++;
  if (top) free_trees(r);
  TSRange *ranges = xrealloc(NULL, sizeof *ranges * (size_t)(p->nhead + 1));
  memcpy(ranges, p->head, sizeof *ranges * (size_t)p->nhead);
  ranges[p->nhead] = (TSRange){p->cutpt[k], p->cutpt[k + 1], p->cut[k], p->cut[k + 1]};
  TSTree *t = parse_chunk(r, p, k, ranges, (uint32_t)p->nhead + 1);
  if (!t) return (TSNode){0};
  if (ck->ntrees == ck->captrees) {
    ck->captrees = ck->captrees ? ck->captrees * 2 : 8;
    ck->trees = xrealloc(ck->trees, sizeof *ck->trees * (size_t)ck->captrees);
  }
  if (!ck->ntrees) ck->kids_mark = r->nkids;
  ck->trees[ck->ntrees++] = t;
  TSNode root = ts_tree_root_node(t);
  if (rd_tree_errors(r, root)) return (TSNode){0};
  /* module > [class > body >] function > body > [with > body ...] */
  TSNode n = root;
  while (!ts_node_is_null(n) && !rd_is(n, "function_definition")) {
    if (rd_is(n, "module") || rd_is(n, "block")) n = last_stmt(n);
    else if (rd_is(n, "decorated_definition")) n = rd_field(n, "definition");
    else if (rd_is(n, "class_definition")) n = rd_field(n, "body");
    else n = (TSNode){0};
  }
  TSNode list = ts_node_is_null(n) ? n : list_below(r, p, rd_field(n, "body"), p->cut[k]);
  if (ts_node_is_null(list)) {
    chunk_error(r, p, k);
    return list;
  }
  ck->list = list;
  return list;
}

bool rd_chunk_planned(rd *r, TSNode def) {
  uint32_t at = ts_node_start_byte(def);
  for (int i = 0; i < r->ck.nplans; i++)
    if (r->ck.plans[i].def_at == at && !r->ck.plans[i].cls) return true;
  return false;
}

/* ---- a class in chunks ---- */

/* the first statement of the block starts on the line at byte `at` (after its indentation) */
static bool starts_at(const rd *r, TSNode block, uint32_t at) {
  while (at < r->len && r->src[at] == ' ') at++;
  TSNode f = first_stmt(block);
  return !ts_node_is_null(f) && ts_node_start_byte(f) == at;
}

const rd_chunk_plan *rd_class_begin(rd *r, TSNode cls) {
  rd_chunks *ck = &r->ck;
  uint32_t at = ts_node_start_byte(cls);
  for (int i = 0; i < ck->nplans; i++)
    if (ck->plans[i].cls && ck->plans[i].def_at == at) {
      const rd_chunk_plan *p = &ck->plans[i];
      if (!starts_at(r, rd_field(cls, "body"), p->cut[0])) {
        chunk_error(r, p, 0);
        return NULL;
      }
      ck->cls = p;
      ck->cls_next = 1;
      return p;
    }
  return NULL;
}

static void free_class_tree(rd *r) {
  rd_chunks *ck = &r->ck;
  if (!ck->cls_tree) return;
  rd_free_children_of(r, ck->cls_mark, ck->cls_tree);
  rd_lc_forget(ck->cls_tree);
  ts_tree_delete(ck->cls_tree);
  ck->cls_tree = NULL;
}

TSNode rd_class_next(rd *r) {
  rd_chunks *ck = &r->ck;
  const rd_chunk_plan *p = ck->cls;
  if (!p || ck->cls_next >= p->nchunks) return (TSNode){0};
  int k = ck->cls_next++;
  free_class_tree(r);
  uint32_t n;
  TSRange *ranges = ranges_of(ck, p->head, p->nhead, p->cut[k], p->cutpt[k], p->cut[k + 1], p->cutpt[k + 1], p, &n);
  TSTree *t = parse_chunk(r, p, k, ranges, n);
  if (!t) return (TSNode){0};
  ck->cls_tree = t;
  ck->cls_mark = r->nkids;
  TSNode root = ts_tree_root_node(t);
  if (rd_tree_errors(r, root)) return (TSNode){0};
  /* module > decorated_definition > class > body */
  TSNode n0 = last_stmt(root);
  if (!ts_node_is_null(n0) && rd_is(n0, "decorated_definition")) n0 = rd_field(n0, "definition");
  TSNode body = !ts_node_is_null(n0) && rd_is(n0, "class_definition") ? rd_field(n0, "body") : (TSNode){0};
  if (ts_node_is_null(body) || !starts_at(r, body, p->cut[k])) {
    chunk_error(r, p, k);
    return (TSNode){0};
  }
  return body;
}

void rd_class_end(rd *r) {
  free_class_tree(r);
  r->ck.cls = NULL;
}

void rd_chunks_free(rd *r) {
  rd_chunks *ck = &r->ck;
  free_trees(r);
  free_class_tree(r);
  for (int i = 0; i < ck->nplans; i++) {
    free(ck->plans[i].defs);
    free(ck->plans[i].head);
    free(ck->plans[i].cut);
    free(ck->plans[i].cutpt);
  }
  free(ck->plans);
  free(ck->trees);
  memset(ck, 0, sizeof *ck);
}
