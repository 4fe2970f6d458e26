/* cuda_slice.c - slice_tensor on CUDA: each thread copies its box with the
 * widest vector type (16, 8, 4 or 2 bytes) that the run length and every
 * stride allow; the pointers' alignment is checked at run time, falling
 * back to an element-wise copy. */
#include <stdio.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"

static const struct {
  int bytes;
  const char *type;
} vec_types[] = {{16, "int4"}, {8, "int2"}, {4, "int"}, {2, "short"}};

/* the widest vector width (bytes) for this copy, or 0 for none */
static int vector_bytes(const cg_slice *sl) {
  int eb = tir_dtype_bytes(sl->dtype);
  int64_t run, st;
  if (!tir_is_const_int(sl->ext[sl->n - 1], &run)) return 0;
  for (size_t i = 0; i < sizeof vec_types / sizeof vec_types[0]; i++) {
    int vb = vec_types[i].bytes;
    if (vb <= eb || vb % eb || (run * eb) % vb) continue;
    bool ok = true;
    for (int k = 0; k < sl->n - 1 && ok; k++) {
      if (!tir_is_const_int(sl->dst_stride[k], &st) || (st * eb) % vb) ok = false;
      if (!tir_is_const_int(sl->src_stride[k], &st) || (st * eb) % vb) ok = false;
    }
    if (ok) return vb;
  }
  return 0;
}

static const char *vec_type(int vb) {
  for (size_t i = 0; i < sizeof vec_types / sizeof vec_types[0]; i++)
    if (vec_types[i].bytes == vb) return vec_types[i].type;
  return "char";
}

static void offset(cg *g, const char *const *idx, const tir_expr *const *stride, int outer) {
  if (outer == 0) {
    cg_text_puts(g->out, "0");
    return;
  }
  for (int k = 0; k < outer; k++) {
    if (k) cg_text_puts(g->out, " + ");
    cg_text_printf(g->out, "%s * ", idx[k]);
    cg_expr_prec(g, stride[k], 14);
  }
}

/* the loop nest over the outer dims, then one run copied in units of
 * `unit` (a C type) of which there are run*eb/ub */
static void copy_nest(cg *g, const cg_slice *sl, const char *dst, const char *src, const char *unit, int ub) {
  const char *idx[5];
  int depth0 = g->indent;
  for (int k = 0; k < sl->n - 1; k++) {
    idx[k] = cg_tmp(g, k == 0 ? "i0" : k == 1 ? "i1" : k == 2 ? "i2" : "i3");
    cg_line_start(g);
    cg_text_printf(g->out, "for (int64_t %s = 0; %s < ", idx[k], idx[k]);
    cg_expr(g, sl->ext[k]);
    cg_text_printf(g->out, "; ++%s)", idx[k]);
    cg_open(g);
  }
  const char *d = cg_tmp(g, "d"), *s = cg_tmp(g, "s"), *v = cg_tmp(g, "v");
  cg_line_start(g);
  cg_text_printf(g->out, "%s *%s = (%s *)(%s + ", unit, d, unit, dst);
  offset(g, idx, sl->dst_stride, sl->n - 1);
  cg_text_puts(g->out, ");\n");
  cg_line_start(g);
  cg_text_printf(g->out, "const %s *%s = (const %s *)(%s + ", unit, s, unit, src);
  offset(g, idx, sl->src_stride, sl->n - 1);
  cg_text_puts(g->out, ");\n");
  cg_line_start(g);
  cg_text_printf(g->out, "for (int64_t %s = 0; %s < ", v, v);
  int eb = tir_dtype_bytes(sl->dtype);
  if (ub == eb) {
    cg_expr(g, sl->ext[sl->n - 1]);
  } else {
    int64_t run = 0;
    tir_is_const_int(sl->ext[sl->n - 1], &run);
    cg_text_printf(g->out, "%lld", (long long)(run * eb / ub));
  }
  cg_text_printf(g->out, "; ++%s)", v);
  cg_open(g);
  cg_linef(g, "%s[%s] = %s[%s];", d, v, s, v);
  cg_close(g);
  while (g->indent > depth0) cg_close(g);
}

bool cuda_slice_tensor(cg *g, const tir_stmt *st) {
  cg_slice sl;
  if (!cg_slice_parse(g, st->u.eval.value, &sl)) return true;
  const char *dst, *src;
  cg_slice_open(g, &sl, &dst, &src);
  int vb = vector_bytes(&sl);
  if (vb) {
    cg_line_start(g);
    cg_text_printf(g->out, "if ((((uintptr_t)%s | (uintptr_t)%s) & %d) == 0)", dst, src, vb - 1);
    cg_open(g);
    copy_nest(g, &sl, dst, src, vec_type(vb), vb);
    cg_leave(g);
    g->indent--;
    cg_line_start(g);
    cg_text_puts(g->out, "} else");
    cg_open(g);
  }
  copy_nest(g, &sl, dst, src, sl.elem, tir_dtype_bytes(sl.dtype));
  if (vb) cg_close(g);
  cg_close(g);
  return true;
}
