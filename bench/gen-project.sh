#!/bin/sh
# bench/gen-project.sh: writes a small C project for the benchmarks that
# record a build: NFILES translation units with some code to optimize, a
# main.c and a Makefile (`make -j2` builds `prog`: about 3 processes per
# file, each mapping its own libraries).
#   sh bench/gen-project.sh DIR [NFILES]
set -e
dir=$1
nfiles=${2:-40}
mkdir -p "$dir"
i=0
while [ "$i" -lt "$nfiles" ]; do
	cat >"$dir/f$i.c" <<-C
	static int t$i[256];
	int f${i}_a(int x) { int s = 0; for (int k = 0; k < 256; k++) s += t$i[k] * x + k; return s; }
	int f${i}_b(const char *p) { int h = 0; while (*p) h = h * 31 + *p++; return h ^ f${i}_a(h); }
	struct s$i { int a, b; double c[8]; };
	double f${i}_c(struct s$i *v, int n) { double d = 0; for (int k = 0; k < n; k++) d += v[k].c[k & 7] * v[k].a; return d; }
	C
	i=$((i + 1))
done
printf 'int main(void) { return 0; }\n' >"$dir/main.c"
{
	printf 'OBJS = main.o'
	i=0
	while [ "$i" -lt "$nfiles" ]; do printf ' f%d.o' "$i"; i=$((i + 1)); done
	printf '\nprog: $(OBJS)\n\tcc -o $@ $(OBJS)\n%%.o: %%.c\n\tcc -O2 -g -c -o $@ $<\n'
} >"$dir/Makefile"
