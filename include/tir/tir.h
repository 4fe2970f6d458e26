/* tir/tir.h - the umbrella header: everything an embedder needs. */
#ifndef TIR_TIR_H
#define TIR_TIR_H
#include "tir/ir.h"
#include "tir/diag.h"
#include "tir/visit.h"
#include "tir/script.h"
#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/codegen.h"
#include "tir/aot.h"
#include "tir/driver.h"
#include "tir/memplan.h"
#include "tir/exec.h"
#include "tir/plan_memory.h"
#define TIR_VERSION "0.1.0"
#endif
