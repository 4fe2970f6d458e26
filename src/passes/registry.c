/* registry.c - the table of passes, in a fixed order: TVM's name, tirc's
 * short alias, one line of doc, the function.  Adding a pass is one line in
 * the table below. */
#include <string.h>

#include "tir/passes.h"
#include "tir/plan_memory.h"

/* ---- the passes, in pipeline order (keep this one array) ---- */
static const tir_pass_info passes[] = {
    {"CanonicalizeLoop", "canonicalize_loop", "make every loop start at 0 with step 1 (min and step move into the body)",
     tir_pass_canonicalize_loop},
    {"Simplify", "simplify", "simplify every expression with the arithmetic analyzer",
     tir_pass_simplify},
    {"LowerCrossThreadReduction", "lower_cross_thread", "a reduction over threadIdx-bound loops as each thread's part and a T.tvm_thread_allreduce", tir_pass_lower_cross_thread_reduction},
    {"LowerInitBlock", "lower_init", "turn a block's init into an if on the first reduction iteration", tir_pass_lower_init_block},
    {"PlanAndUpdateBufferAllocationLocation", "plan_alloc", "move each block allocation to the lowest common ancestor of its uses", tir_pass_plan_buffer_allocation},
    {"ConvertBlocksToOpaque", "to_opaque", "replace block iter vars by their bindings; blocks become opaque", tir_pass_convert_blocks_to_opaque},
    {"CompactBufferAllocation", "compact",
     "shrink block-allocated buffers to the box they are accessed in",
     tir_pass_compact_buffer_allocation},
    {"LowerMatchBuffer", "lower_match",
     "remove block match_buffers by rewriting their uses onto the source buffer",
     tir_pass_lower_match_buffer},
    {"LowerOpaqueBlock", "lower_opaque", "remove opaque blocks: allocations, predicates as ifs, thread bindings as launch_thread", tir_pass_lower_opaque_block},
    {"FlattenBuffer", "flatten", "make every buffer 1-D, with strides and elem_offset in the index", tir_pass_flatten_buffer},
    {"LowerThreadAllreduce", "lower_thread_allreduce", "lower each T.tvm_thread_allreduce to a tree reduction in shared memory with barriers", tir_pass_lower_thread_allreduce},
    {"RemoveNoOp", "remove_noop", "remove statements that do nothing", tir_pass_remove_no_op},
    {"LowerIntrin", "lower_intrin", "lower tvm_access_ptr to address_of, dropping type_annotation", tir_pass_lower_intrin},
    {"PlanMemory", "plan_memory", "plan the temporaries of lowered IR: one workspace and one shared array per kernel, each temporary a view at its offset (in place where isl proves it safe)", tir_pass_plan_memory},
};
/* ---- end of the pass table ---- */

const tir_pass_info *tir_pass_registry(int *n) {
  if (n) *n = (int)(sizeof passes / sizeof passes[0]);
  return passes;
}

const tir_pass_info *tir_pass_lookup(const char *name) {
  if (!name) return NULL;
  int n = (int)(sizeof passes / sizeof passes[0]);
  for (int i = 0; i < n; i++)
    if (!strcmp(passes[i].name, name) || !strcmp(passes[i].alias, name)) return &passes[i];
  return NULL;
}
