/*
 * rec_intlib.c: the library rec_libswap loads (build with -shared -fPIC
 * -O0).  Its code touches no data of its file, constant or not, so it
 * keeps running once the file is cut right after the code segment.
 * lib_late runs only after the cut: its addresses are new to the
 * unwinder, which must then look their CFI up in the file.
 */
void lib_work(void);
void lib_late(void);

__attribute__((noinline)) static void
lib_inner(void)
{
	volatile unsigned long sink = 0;
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) static void
late_inner(void)
{
	volatile unsigned long sink = 0;
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i * 3;
}

void
lib_work(void)
{
	lib_inner();
}

void
lib_late(void)
{
	late_inner();
}
