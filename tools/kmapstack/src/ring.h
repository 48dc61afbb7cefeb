/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a ring of messages in memory shared by two processes, one
 * writing and one reading, made before fork(). The bytes go from one to
 * the other without a system call and without a copy by the kernel; a
 * socket pair only wakes the side that sleeps (a full ring for the writer,
 * an empty one for the reader) and tells each side when the other is gone.
 *
 * A message is a multiple of 8 bytes that begins with struct ring_head; a
 * message never wraps around the end of the ring (the writer fills the
 * rest with a message of type RING_PAD, which the reader skips). The
 * reader trusts nothing that the writer wrote: positions and lengths are
 * checked before use.
 */
#ifndef KMS_RING_H
#define KMS_RING_H

#include <stddef.h>
#include <stdint.h>

struct ring_head {
	uint16_t len; /* of the whole message, a multiple of 8 */
	uint8_t type; /* RING_PAD, else the user's */
	uint8_t spare;
};

#define RING_PAD 0
#define RING_MAX_MSG 8192

struct ring_ctl;

struct ring {
	struct ring_ctl *ctl; /* shared */
	unsigned char *data; /* shared, size bytes */
	uint32_t size;
	int fd[2]; /* the socket pair: [0] the reader's end, [1] the writer's */
	int fd_self; /* this side's end once ring_reader()/ring_writer() */
	uint32_t pos; /* the writer's head, the reader's tail */
	uint32_t published; /* the writer's head that the reader can see */
	uint32_t limit; /* the writer may fill up to here: tail + size */
	uint32_t head; /* the reader's last view of the writer's head */
	int gone; /* the other side closed its end */
};

/* size: a power of two; 0, or -1 with errno */
int ring_init(struct ring *r, uint32_t size);
/* after fork(): each side takes its end of the socket pair */
void ring_reader(struct ring *r);
void ring_writer(struct ring *r);
void ring_free(struct ring *r);

/* the writer publishes its messages this many bytes at a time */
#define RING_BATCH (32u << 10)

void *ring_reserve_slow(struct ring *r, size_t len);
void ring_publish(struct ring *r, int flush);

/*
 * The writer: room for a message of len bytes (a multiple of 8, at most
 * RING_MAX_MSG), waiting while the ring is full; NULL when the reader is
 * gone. ring_put() makes the message count; it is published (seen by the
 * reader) every RING_BATCH bytes, or at ring_flush().
 */
static inline void *ring_reserve(struct ring *r, size_t len)
{
	uint32_t off = r->pos & (r->size - 1);

	if (off + len <= r->size && r->limit - r->pos >= len)
		return r->data + off;
	return ring_reserve_slow(r, len);
}

static inline void ring_put(struct ring *r, size_t len)
{
	r->pos += (uint32_t)len;
	if (r->pos - r->published >= RING_BATCH)
		ring_publish(r, 0);
}

static inline void ring_flush(struct ring *r)
{
	ring_publish(r, 1);
}

const void *ring_next_slow(struct ring *r, size_t *len);

/*
 * The reader: the next message (its length in *len), NULL when none has
 * been published yet, or -1 in *len when the ring is corrupt. The message
 * is valid until ring_done(), which hands the space back to the writer.
 */
static inline const void *ring_next(struct ring *r, size_t *len)
{
	uint32_t off = r->pos & (r->size - 1);
	struct ring_head h;

	if (r->pos != r->head) {
		__builtin_memcpy(&h, r->data + off, sizeof(h));
		if (h.type != RING_PAD && h.len >= 8 && !(h.len % 8) &&
		    h.len <= RING_MAX_MSG && h.len <= r->head - r->pos &&
		    off + h.len <= r->size) {
			r->pos += h.len;
			*len = h.len;
			return r->data + off;
		}
	}
	return ring_next_slow(r, len);
}

void ring_done(struct ring *r);
/*
 * Sleep until a quarter of the ring is there, the writer flushes or goes
 * away, or timeout_ms pass. 1: something may have come, 0: time out,
 * -1: the writer is gone (its last messages may still be there).
 */
int ring_wait(struct ring *r, int timeout_ms);

#endif
