// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the ring of messages shared by two processes (ring.h) */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ring.h"

/* the sleeping side waits for a quarter of the ring (data or room) */
#define RING_WAKE(r) ((r)->size / 4)
#define RING_CTL 4096

/* the writer's and the reader's fields on cache lines of their own */
struct ring_ctl {
	_Alignas(64) uint32_t head; /* bytes published by the writer */
	uint32_t reader_waits; /* the reader sleeps until head >= ... */
	uint32_t reader_want;
	_Alignas(64) uint32_t tail; /* bytes handed back by the reader */
	uint32_t writer_waits; /* the writer sleeps until this much room */
	uint32_t writer_want;
};

_Static_assert(sizeof(struct ring_ctl) <= RING_CTL, "control page");
_Static_assert(sizeof(struct ring_head) == 4, "message head");

#define LOAD(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n(p, v, __ATOMIC_SEQ_CST)
#define TAKE(p) __atomic_exchange_n(p, 0, __ATOMIC_SEQ_CST)

int ring_init(struct ring *r, uint32_t size)
{
	void *m;

	memset(r, 0, sizeof(*r));
	r->fd[0] = r->fd[1] = r->fd_self = -1;
	if (size < 4 * RING_MAX_MSG || (size & (size - 1)) || size > 1u << 30) {
		errno = EINVAL;
		return -1;
	}
	m = mmap(NULL, RING_CTL + size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, r->fd)) {
		int e = errno;

		munmap(m, RING_CTL + size);
		errno = e;
		return -1;
	}
	r->ctl = m;
	r->data = (unsigned char *)m + RING_CTL;
	r->size = size;
	return 0;
}

static void take_end(struct ring *r, int mine)
{
	close(r->fd[!mine]);
	r->fd[!mine] = -1;
	r->fd_self = r->fd[mine];
}

void ring_reader(struct ring *r)
{
	take_end(r, 0);
}

void ring_writer(struct ring *r)
{
	take_end(r, 1);
}

void ring_free(struct ring *r)
{
	for (int i = 0; i < 2; i++)
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	if (r->ctl)
		munmap(r->ctl, RING_CTL + r->size);
	memset(r, 0, sizeof(*r));
	r->fd[0] = r->fd[1] = r->fd_self = -1;
}

static void ring_bell(struct ring *r)
{
	/* one byte a sleep; a full socket already wakes the other side */
	if (send(r->fd_self, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
	    errno == EPIPE)
		r->gone = 1;
}

/* sleep until the other side rings (1), goes (-1) or the time is out (0) */
static int ring_sleep(struct ring *r, uint32_t *waits, int timeout_ms)
{
	struct pollfd p = { .fd = r->fd_self, .events = POLLIN };
	char buf[64];
	ssize_t n;
	int woke = poll(&p, 1, timeout_ms);

	if (woke < 0 && errno != EINTR)
		r->gone = 1;
	TAKE(waits);
	/* the bells rung so far, and the end of the other side */
	do {
		n = recv(r->fd_self, buf, sizeof(buf), MSG_DONTWAIT);
	} while (n == (ssize_t)sizeof(buf) || (n < 0 && errno == EINTR));
	if (!n || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
		r->gone = 1;
	return r->gone ? -1 : woke != 0;
}

void ring_publish(struct ring *r, int flush)
{
	struct ring_ctl *c = r->ctl;

	STORE(&c->head, r->pos);
	r->published = r->pos;
	if (LOAD(&c->reader_waits) &&
	    (flush || (int32_t)(r->pos - LOAD(&c->reader_want)) >= 0) &&
	    TAKE(&c->reader_waits))
		ring_bell(r);
}

/* the room left, with a fresh look at the reader's tail */
static uint32_t room(struct ring *r)
{
	r->limit = LOAD(&r->ctl->tail) + r->size;
	return r->limit - r->pos;
}

void *ring_reserve_slow(struct ring *r, size_t len)
{
	uint32_t off = r->pos & (r->size - 1);
	uint32_t pad = off + len > r->size ? r->size - off : 0;
	uint32_t need = pad + (uint32_t)len;

	while (room(r) < need) {
		uint32_t want = need > RING_WAKE(r) ? need : RING_WAKE(r);

		ring_publish(r, 1);
		STORE(&r->ctl->writer_want, want);
		STORE(&r->ctl->writer_waits, 1);
		if (room(r) >= want) {
			TAKE(&r->ctl->writer_waits);
			continue;
		}
		if (r->gone || ring_sleep(r, &r->ctl->writer_waits, 1000) < 0)
			return NULL;
	}
	if (pad) {
		struct ring_head h = { .len = (uint16_t)pad, .type = RING_PAD };

		memcpy(r->data + off, &h, sizeof(h));
		r->pos += pad;
	}
	return r->data + (r->pos & (r->size - 1));
}

const void *ring_next_slow(struct ring *r, size_t *len)
{
	for (;;) {
		uint32_t off = r->pos & (r->size - 1), avail;
		struct ring_head h;

		if (r->pos == r->head) {
			r->head = LOAD(&r->ctl->head);
			if (r->head - r->pos > r->size)
				goto corrupt;
			if (r->pos == r->head)
				return NULL;
		}
		avail = r->head - r->pos;
		memcpy(&h, r->data + off, sizeof(h));
		if (h.len < 8 || h.len % 8 || h.len > RING_MAX_MSG ||
		    h.len > avail || off + h.len > r->size)
			goto corrupt;
		r->pos += h.len;
		if (h.type == RING_PAD)
			continue;
		*len = h.len;
		return r->data + off;
	}
corrupt:
	*len = (size_t)-1;
	return NULL;
}

void ring_done(struct ring *r)
{
	struct ring_ctl *c = r->ctl;

	STORE(&c->tail, r->pos);
	if (LOAD(&c->writer_waits) &&
	    r->size - (LOAD(&c->head) - r->pos) >= LOAD(&c->writer_want) &&
	    TAKE(&c->writer_waits))
		ring_bell(r);
}

int ring_wait(struct ring *r, int timeout_ms)
{
	struct ring_ctl *c = r->ctl;
	uint32_t want = RING_WAKE(r);

	if (r->gone)
		return -1;
	STORE(&c->reader_want, r->pos + want);
	STORE(&c->reader_waits, 1);
	if (LOAD(&c->head) - r->pos >= want) {
		TAKE(&c->reader_waits);
		return 1;
	}
	return ring_sleep(r, &c->reader_waits, timeout_ms);
}
