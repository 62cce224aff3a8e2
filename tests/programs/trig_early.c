/* trig_early — a program whose linked library started a thread before main (and before the
 * preload's constructor). */
#include <stdio.h>

void join_early(void);

int main(void)
{
	join_early();
	printf("early thread joined\n");
	return 0;
}
