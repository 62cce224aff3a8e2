/* preload/hitring.c — see hitring.h. */
#include "preload/hitring.h"

#include <string.h>

void mtj_ring_init(struct mtj_ring *r)
{
	atomic_store(&r->head, 0);
	atomic_store(&r->tail, 0);
	atomic_store(&r->dropped, 0);
	for (uint64_t i = 0; i < MTJ_RING_SLOTS; i++)
		atomic_store(&r->seq[i], i);
}

struct mtj_hit *mtj_ring_claim(struct mtj_ring *r, uint64_t *ticket)
{
	uint64_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
	for (;;) {
		uint64_t idx = pos & (MTJ_RING_SLOTS - 1);
		uint64_t seq = atomic_load_explicit(&r->seq[idx], memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1,
								  memory_order_relaxed, memory_order_relaxed)) {
				*ticket = pos;
				memset(&r->slot[idx], 0, sizeof(r->slot[idx]));
				return &r->slot[idx];
			}
		} else if (dif < 0) {
			atomic_fetch_add(&r->dropped, 1);
			return NULL;
		} else {
			pos = atomic_load_explicit(&r->head, memory_order_relaxed);
		}
	}
}

void mtj_ring_publish(struct mtj_ring *r, uint64_t ticket)
{
	atomic_store_explicit(&r->seq[ticket & (MTJ_RING_SLOTS - 1)], ticket + 1, memory_order_release);
}

bool mtj_ring_pop(struct mtj_ring *r, struct mtj_hit *out)
{
	uint64_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t idx = pos & (MTJ_RING_SLOTS - 1);
	uint64_t seq = atomic_load_explicit(&r->seq[idx], memory_order_acquire);
	if (seq != pos + 1)
		return false;
	*out = r->slot[idx];
	atomic_store_explicit(&r->tail, pos + 1, memory_order_relaxed);
	atomic_store_explicit(&r->seq[idx], pos + MTJ_RING_SLOTS, memory_order_release);
	return true;
}
