// sym_v8like.cc: fixture for sp-symbolize's demangling: the shape of
// V8's StringShape::DispatchToSpecificTypeWithoutCast, a function
// template instantiated with a class local to another function template,
// whose parameters libiberty cannot print (it then prints nothing
// unless asked for the name without parameters).  Its mangled name is
// the one node's binary carries.
namespace v8 {
namespace internal {
struct PtrComprCageBase {};
struct SharedStringAccessGuardIfNeeded {};
struct String;

struct StringShape {
	template <typename TDispatcher, typename TResult, typename... TArgs>
	__attribute__((noinline)) static TResult
	DispatchToSpecificTypeWithoutCast(TArgs &&...args)
	{
		return TDispatcher::f(args...);
	}
	template <typename TDispatcher, typename TResult, typename... TArgs>
	__attribute__((noinline)) static TResult
	DispatchToSpecificType(String s, TArgs &&...args);
};

struct String {
	int x;
	unsigned short GetImpl(int i, PtrComprCageBase c,
			       const SharedStringAccessGuardIfNeeded &g) const;
};

template <typename TDispatcher, typename TResult, typename... TArgs>
TResult
StringShape::DispatchToSpecificType(String s, TArgs &&...args)
{
	struct CastingDispatcher {
		__attribute__((noinline)) static TResult
		f(String &s, TArgs &...a)
		{
			return TDispatcher::g(s, a...);
		}
	};
	return DispatchToSpecificTypeWithoutCast<CastingDispatcher, TResult>(
	    s, args...);
}

unsigned short
String::GetImpl(int i, PtrComprCageBase c,
		const SharedStringAccessGuardIfNeeded &g) const
{
	struct StringGetDispatcher {
		static unsigned short
		g(String &s, int &i, PtrComprCageBase &,
		  const SharedStringAccessGuardIfNeeded &)
		{
			return (unsigned short)(s.x + i);
		}
	};
	return StringShape::DispatchToSpecificType<StringGetDispatcher,
						   unsigned short>(*this, i, c,
								   g);
}
} // namespace internal
} // namespace v8

// A template whose mangled name encodes its return type.
namespace va {
template <typename T>
__attribute__((noinline)) T
reserve(T *v, unsigned n)
{
	return v[n];
}
} // namespace va

int
main(int argc, char **)
{
	v8::internal::String s{ argc };
	long v[2] = { 1, 2 };

	return s.GetImpl(argc, {}, {}) == 7 || va::reserve<long>(v, 1) == 9;
}
