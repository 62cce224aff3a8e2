// sym_cxx — C++ functions for demangled-name resolution tests (test_symbols, tests 5xx):
// overloaded methods, a namespace, a template, an anonymous namespace and an operator.
#include <cstdio>

namespace ns {
class Class {
public:
	int method(int x);
	int method(double x);
	int single(const char *s, unsigned long n) const;
	bool operator<(const Class &o) const;
	int v = 1;
};

int Class::method(int x) { return v + x; }
int Class::method(double x) { return v + (int)x * 2; }
int Class::single(const char *s, unsigned long n) const { return s[0] + (int)n + v; }
bool Class::operator<(const Class &o) const { return v < o.v; }

template <typename T> T twice(T x) { return x + x; }
template int twice<int>(int);
} // namespace ns

namespace {
int hidden_helper(int x) { return x * 5; }
} // namespace

int main(int argc, char **)
{
	ns::Class c, d;
	int r = c.method(argc) + c.method(1.5) + c.single("x", 2) + (c < d) + ns::twice(argc) +
		hidden_helper(argc);
	std::printf("%d\n", r);
	return 0;
}
