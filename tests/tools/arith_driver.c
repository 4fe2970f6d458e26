/* arith_driver - simplify int exprs read from stdin, one a line:
 *     NAME MIN EXTENT ... ; EXPR
 * (vars with ranges, then the expr in the S-expression form of sexpr.h).
 * Prints, per line: the simplified expr, the node counts before and after,
 * and isl's verdict on input == output under the ranges ("equal" when
 * proved, "unproved" otherwise), separated by tabs; "error" for a line it
 * cannot read.  Used by tests/oracle/diff_analyzer.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"
#include "sexpr.h"
#include "tir/tir.h"

static void run_line(char *line) {
  tir_ctx *c = tir_ctx_new();
  tir_analyzer *a = tir_analyzer_new(c, NULL);
  a->isl_max_ops = 0; /* the verdict must not give up */
  sx_vars vs = {0};
  char *semi = strchr(line, ';');
  tir_expr *e = NULL;
  if (semi) {
    *semi = 0;
    char *tok = strtok(line, " \t");
    while (tok) {
      char *mn = strtok(NULL, " \t"), *ext = strtok(NULL, " \t");
      if (!mn || !ext) break;
      tir_expr *v = sx_var(c, &vs, tok, strlen(tok));
      tir_analyzer_bind_range(a, v, tir_i32(c, atoll(mn)), tir_i32(c, atoll(ext)));
      tok = strtok(NULL, " \t");
    }
    e = sx_read(c, &vs, semi + 1);
  }
  if (!e) {
    printf("error\n");
  } else {
    tir_expr *r = tir_simplify(a, e);
    char *s = tir_print_expr(r);
    tir_expr *claim = tir_binary(c, TIR_EQ, e, r);
    if (tir_dtype_is_bool(e->dtype)) /* e <=> r */
      claim = tir_binary(c, TIR_OR, tir_binary(c, TIR_AND, e, r),
                         tir_binary(c, TIR_AND, tir_not(c, e), tir_not(c, r)));
    bool eq = ana_expr_equal(e, r) || ana_isl_prove(a, claim);
    printf("%s\t%d\t%d\t%s\n", s, ana_expr_size(e), ana_expr_size(r), eq ? "equal" : "unproved");
    free(s);
  }
  tir_analyzer_free(a);
  tir_ctx_free(c);
}

int main(void) {
  char line[8192];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    if (!line[0]) continue;
    run_line(line);
    fflush(stdout);
  }
  return 0;
}
