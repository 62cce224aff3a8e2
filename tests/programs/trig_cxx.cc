// trig_cxx — C++ triggers: a method in a namespace, an overload, a template.
#include <cstdio>

namespace shop {
struct Cart {
	int items = 0;
	int add(int n);
	int add(int n, int times);
};
int Cart::add(int n) { items += n; return items; }
int Cart::add(int n, int times) { items += n * times; return items; }
}

template <typename T> T twice(T v) { return v + v; }

int main()
{
	shop::Cart c;
	c.add(2);
	c.add(3, 2);
	std::printf("items %d twice %d\n", c.items, twice(21));
	return 0;
}
