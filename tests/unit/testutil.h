/* testutil.h - helpers shared by the Check unit tests. */
#ifndef TIR_TESTUTIL_H
#define TIR_TESTUTIL_H
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tir/tir.h"

/* run one suite; returns the process exit status */
static inline int tir_test_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
