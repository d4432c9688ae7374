// sym_cxx.cc: C++ fixture for sp-symbolize's demangling tests: a
// namespaced function, a method and a template, all with mangled names.
namespace sym {
volatile int sink;

struct Widget {
	__attribute__((noinline)) int spin(int n);
};

__attribute__((noinline)) int
Widget::spin(int n)
{
	sink = n;
	return n + 1;
}

template <typename T>
__attribute__((noinline)) T
twice(T v)
{
	sink = (int)v;
	return v + v;
}

__attribute__((noinline)) int
run(int n)
{
	Widget w;

	return w.spin(n) + twice<long>(n);
}
} // namespace sym

int
main(int argc, char **)
{
	return sym::run(argc) == -1;
}
