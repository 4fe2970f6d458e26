#!/usr/bin/env bash
# make install / uninstall into a staging DESTDIR, the library's exports,
# and the first example of docs/embedding.md built against the installed
# library through pkg-config and run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stage="$tmp/stage"; prefix=/usr/local; p="$stage$prefix"
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL install: $1"; [ -f "${2:-}" ] && head -n 20 "$2"; return 0; }
make -C "$root" --no-print-directory -s install DESTDIR="$stage" PREFIX="$prefix" >"$tmp/inst.log" 2>&1 || { bad "make install" "$tmp/inst.log"; echo "install: $pass passed, $fail failed"; exit 1; }
ver=$(sed -n 's/^#define TIR_VERSION "\(.*\)"/\1/p' "$root/include/tir/tir.h"); maj=${ver%%.*}; rest=${ver#*.}; min=${rest%%.*}
for f in bin/tirc lib/libtir.a "lib/libtir.so.$maj.$min" lib/pkgconfig/tir.pc share/man/man1/tirc.1 include/tir/tir.h; do
  [ -f "$p/$f" ] && ok || bad "missing $f"
done
[ "$(readlink "$p/lib/libtir.so")" = "libtir.so.$maj" ] && [ "$(readlink "$p/lib/libtir.so.$maj")" = "libtir.so.$maj.$min" ] && ok || bad "symlinks"
readelf -d "$p/lib/libtir.so.$maj.$min" | grep -q "SONAME.*\[libtir.so.$maj\]" && ok || bad "SONAME is not libtir.so.$maj"
for h in "$root"/include/tir/*.h; do cmp -s "$h" "$p/include/tir/$(basename "$h")" && ok || bad "header $(basename "$h")"; done
# exports: only the public API, and all of it
nm -D --defined-only "$p/lib/libtir.so" | awk '{print $3}' | sort >"$tmp/exported"
if grep -v -E '^(tir_|TIR_)' "$tmp/exported" >"$tmp/stray"; then bad "exports symbols outside the API" "$tmp/stray"; else ok; fi
python3 - "$root/include/tir" >"$tmp/declared" <<'PY'
import glob, re, sys
names = set()
for h in glob.glob(sys.argv[1] + "/*.h"):
    s = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    macros = set(re.findall(r"#\s*define\s+(tir_\w+)", s))
    s = re.sub(r"#[^\n]*", "", s)
    for m in re.finditer(r"\b(tir_\w+)\s*\(", s):
        before = s[:m.start()].rstrip()
        if m.group(1) in macros or before.endswith(("=", "return", "(", ",")):
            continue
        names.add(m.group(1))
print("\n".join(sorted(names)))
PY
if comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing" && [ -s "$tmp/missing" ]; then bad "public functions not exported" "$tmp/missing"; else ok; fi
# each installed header stands alone (C, and C++ when there is a compiler),
# and tir/tir.h includes every one
for h in "$p"/include/tir/*.h; do
  n=$(basename "$h")
  printf '#include <tir/%s>\n' "$n" >"$tmp/h.c"
  cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$p/include" "$tmp/h.c" 2>"$tmp/h.log" && ok || bad "<tir/$n> does not compile alone" "$tmp/h.log"
  if command -v c++ >/dev/null 2>&1; then
    c++ -x c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$p/include" "$tmp/h.c" 2>"$tmp/h.log" && ok || bad "<tir/$n> does not compile as C++" "$tmp/h.log"
  fi
  [ "$n" = tir.h ] || grep -q "^#include \"tir/$n\"" "$p/include/tir/tir.h" && ok || bad "tir/tir.h does not include tir/$n"
done
# the embedding example, through pkg-config
awk '/^```c$/{on=1; next} /^```$/{if(on) exit} on' "$root/docs/embedding.md" >"$tmp/app.c"
flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --define-variable=prefix="$p" --cflags --libs tir) || bad "pkg-config tir"
if cc -std=c11 -Wall -Wextra -Werror "$tmp/app.c" $flags -o "$tmp/app" 2>"$tmp/cc.log"; then
  if LD_LIBRARY_PATH="$p/lib" "$tmp/app" >"$tmp/app.out" 2>&1 && grep -q 'tmp = T.sblock_alloc_buffer((1, 16))' "$tmp/app.out"; then ok
  else bad "the embedding example did not run as documented" "$tmp/app.out"; fi
  LD_LIBRARY_PATH="$p/lib" ldd "$tmp/app" | grep -q "libtir.so.$maj => $p/lib" && ok || bad "the example is not linked to the installed libtir.so.$maj"
else
  bad "the embedding example does not compile" "$tmp/cc.log"
fi
make -C "$root" --no-print-directory -s uninstall DESTDIR="$stage" PREFIX="$prefix" >"$tmp/un.log" 2>&1 || bad "make uninstall" "$tmp/un.log"
left=$(find "$stage" -type f -o -type l)
[ -z "$left" ] && ok || bad "uninstall left: $left"
echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
