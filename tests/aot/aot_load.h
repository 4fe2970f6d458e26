/* aot_load.h - a runtime's loader of tirc's AOT description (jansson +
 * dlopen; no libtir).  See aot_load.c. */
#ifndef AOT_LOAD_H
#define AOT_LOAD_H
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define AOT_LOADER_MAJOR 1 /* the metadata major version this loader reads */
#define AOT_ERR_LEN 512

typedef struct aot_module aot_module;

/* reads and checks the description; dlopens so_path (may be NULL) */
aot_module *aot_open(const char *json_path, const char *so_path, char *err);
void aot_close(aot_module *m);
int aot_check(const json_t *root, char *err);
const json_t *aot_root(const aot_module *m);
const json_t *aot_func(const aot_module *m, const char *symbol);
/* a size (integer or expression string) with the scalar arguments argv */
int64_t aot_eval(const json_t *f, const json_t *size, void *const *argv, int *ok);
/* packs argv (buffer pointers; addresses of scalars) at the description's
 * offsets and calls SYMBOL_packed; the function's return value, or -1 with
 * err set when the description is refused */
int aot_call(aot_module *m, const char *symbol, void *const *argv, char *err);
#endif
