/* ext.c: encoders and decoders of the extension records (ext.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/ext.h"
#include "common/varint.h"
#include "common/banned.h"

/* A decoding cursor: every read is checked against `end`. */
struct cur {
	const uint8_t *p;
	const uint8_t *end;
};

static int
get_u64(struct cur *c, uint64_t *v)
{
	return sp_varint_get_u64(&c->p, c->end, v) ? -EBADMSG : 0;
}

static int
get_pid(struct cur *c, int32_t *pid)
{
	int64_t v;

	if (sp_varint_get_i64(&c->p, c->end, &v) || v < INT32_MIN ||
	    v > INT32_MAX)
		return -EBADMSG;
	*pid = (int32_t)v;
	return 0;
}

static int
get_bytes(struct cur *c, const uint8_t **p, size_t *n)
{
	uint64_t len;

	if (get_u64(c, &len) || len > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	*p = c->p;
	*n = (size_t)len;
	c->p += len;
	return 0;
}

static int
get_byte(struct cur *c, uint8_t *b)
{
	if (c->p >= c->end)
		return -EBADMSG;
	*b = *c->p++;
	return 0;
}

static int
finish(const struct cur *c)
{
	return c->p == c->end ? 0 : -EBADMSG;
}

static int
put_bytes(struct sp_buf *out, const void *p, size_t n)
{
	int rc = sp_varint_put_u64(out, n);

	return rc ? rc : sp_buf_add(out, p, n);
}

int
sp_ext_comm_encode(struct sp_buf *out, const struct sp_ext_comm *c)
{
	int rc = sp_varint_put_u64(out, c->timestamp_ns);

	rc = rc ? rc : sp_varint_put_i64(out, c->pid);
	rc = rc ? rc : sp_varint_put_u64(out, c->tid);
	rc = rc ? rc : sp_buf_addc(out, c->is_exec ? 1 : 0);
	return rc ? rc : put_bytes(out, c->name, c->name_len);
}

int
sp_ext_comm_decode(const uint8_t *p, size_t n, struct sp_ext_comm *c)
{
	struct cur cu = { p, p + n };
	const uint8_t *name;
	uint8_t flag;

	if (get_u64(&cu, &c->timestamp_ns) || get_pid(&cu, &c->pid) ||
	    get_u64(&cu, &c->tid) || get_byte(&cu, &flag) ||
	    get_bytes(&cu, &name, &c->name_len))
		return -EBADMSG;
	c->is_exec = flag != 0;
	c->name = (const char *)name;
	return finish(&cu);
}

int
sp_ext_lost_encode(struct sp_buf *out, const struct sp_ext_lost *l)
{
	int rc = sp_varint_put_u64(out, l->timestamp_ns);

	return rc ? rc : sp_varint_put_u64(out, l->count);
}

int
sp_ext_lost_decode(const uint8_t *p, size_t n, struct sp_ext_lost *l)
{
	struct cur cu = { p, p + n };

	if (get_u64(&cu, &l->timestamp_ns) || get_u64(&cu, &l->count))
		return -EBADMSG;
	return finish(&cu);
}

int
sp_ext_exit_encode(struct sp_buf *out, const struct sp_ext_exit *e)
{
	int rc = sp_varint_put_u64(out, e->timestamp_ns);

	rc = rc ? rc : sp_varint_put_i64(out, e->pid);
	return rc ? rc : sp_varint_put_u64(out, e->tid);
}

int
sp_ext_exit_decode(const uint8_t *p, size_t n, struct sp_ext_exit *e)
{
	struct cur cu = { p, p + n };

	if (get_u64(&cu, &e->timestamp_ns) || get_pid(&cu, &e->pid) ||
	    get_u64(&cu, &e->tid))
		return -EBADMSG;
	return finish(&cu);
}

int
sp_ext_buildid_encode(struct sp_buf *out, const struct sp_ext_buildid *b)
{
	int rc = sp_varint_put_u64(out, b->module_id);

	return rc ? rc : put_bytes(out, b->id, b->id_len);
}

int
sp_ext_buildid_decode(const uint8_t *p, size_t n, struct sp_ext_buildid *b)
{
	struct cur cu = { p, p + n };
	uint64_t id;

	if (get_u64(&cu, &id) || id >= UINT32_MAX ||
	    get_bytes(&cu, &b->id, &b->id_len))
		return -EBADMSG;
	b->module_id = (uint32_t)id;
	return finish(&cu);
}

int
sp_ext_pair_encode(struct sp_buf *out, const char *key, const char *val)
{
	int rc = put_bytes(out, key, strlen(key));

	return rc ? rc : put_bytes(out, val, strlen(val));
}

int
sp_ext_counter_encode(struct sp_buf *out, const char *key, uint64_t val)
{
	int rc = put_bytes(out, key, strlen(key));

	return rc ? rc : sp_varint_put_u64(out, val);
}

int
sp_ext_pair_next(struct sp_ext_iter *it, const char **key, size_t *klen,
		 const char **val, size_t *vlen)
{
	struct cur cu = { it->p, it->end };
	const uint8_t *k, *v;

	if (cu.p == cu.end)
		return 0;
	if (get_bytes(&cu, &k, klen) || get_bytes(&cu, &v, vlen))
		return -EBADMSG;
	*key = (const char *)k;
	*val = (const char *)v;
	it->p = cu.p;
	return 1;
}

int
sp_ext_counter_next(struct sp_ext_iter *it, const char **key, size_t *klen,
		    uint64_t *val)
{
	struct cur cu = { it->p, it->end };
	const uint8_t *k;

	if (cu.p == cu.end)
		return 0;
	if (get_bytes(&cu, &k, klen) || get_u64(&cu, val))
		return -EBADMSG;
	*key = (const char *)k;
	it->p = cu.p;
	return 1;
}

int
sp_ext_event_encode(struct sp_buf *out, const struct sp_ext_event *e)
{
	int rc = sp_varint_put_u64(out, e->index);

	rc = rc ? rc : put_bytes(out, e->name, e->name_len);
	rc = rc ? rc : sp_varint_put_u64(out, e->period);
	return rc ? rc : sp_varint_put_u64(out, e->freq);
}

int
sp_ext_event_decode(const uint8_t *p, size_t n, struct sp_ext_event *e)
{
	struct cur cu = { p, p + n };
	const uint8_t *name;
	uint64_t index;

	if (get_u64(&cu, &index) || index >= SP_EXT_EVENTS_MAX ||
	    get_bytes(&cu, &name, &e->name_len) || e->name_len == 0 ||
	    get_u64(&cu, &e->period) || get_u64(&cu, &e->freq))
		return -EBADMSG;
	e->index = (uint32_t)index;
	e->name = (const char *)name;
	return finish(&cu);
}

int
sp_ext_weight_encode(struct sp_buf *out, const struct sp_ext_weight *w)
{
	int rc = sp_varint_put_u64(out, w->event);

	return rc ? rc : sp_varint_put_u64(out, w->weight);
}

int
sp_ext_weight_decode(const uint8_t *p, size_t n, struct sp_ext_weight *w)
{
	struct cur cu = { p, p + n };
	uint64_t event;

	if (get_u64(&cu, &event) || event >= SP_EXT_EVENTS_MAX ||
	    get_u64(&cu, &w->weight))
		return -EBADMSG;
	w->event = (uint32_t)event;
	return finish(&cu);
}

int
sp_ext_wait_encode(struct sp_buf *out, enum sp_wait_state state)
{
	return sp_varint_put_u64(out, (uint64_t)state);
}

int
sp_ext_wait_decode(const uint8_t *p, size_t n, enum sp_wait_state *state)
{
	struct cur cu = { p, p + n };
	uint64_t v;

	if (get_u64(&cu, &v) || v == SP_WAIT_NONE || v >= SP_WAIT_NSTATES)
		return -EBADMSG;
	*state = (enum sp_wait_state)v;
	return finish(&cu);
}

static const char *const wait_names[SP_WAIT_NSTATES] = {
	[SP_WAIT_PREEMPTED] = "preempted",
	[SP_WAIT_SLEEP] = "sleep",
	[SP_WAIT_IO] = "io",
	[SP_WAIT_BLOCKED] = "blocked",
};

const char *
sp_wait_state_name(enum sp_wait_state state)
{
	return (unsigned)state < SP_WAIT_NSTATES ? wait_names[state] : NULL;
}

enum sp_wait_state
sp_wait_state_parse(const char *word)
{
	int i;

	for (i = SP_WAIT_NONE + 1; i < SP_WAIT_NSTATES; i++)
		if (!strcmp(word, wait_names[i]))
			return (enum sp_wait_state)i;
	return SP_WAIT_NONE;
}

/* check()'s answer for a payload that does not decode. */
static const char MALFORMED[] = "malformed payload";

/* Whether a host or stats key holds neither a NUL nor the '=' that ends it
 * in a text record. */
static bool
good_key(const char *k, size_t n)
{
	return !memchr(k, 0, n) && !memchr(k, '=', n);
}

static const char *
check_pairs(const uint8_t *p, size_t n, bool counters)
{
	struct sp_ext_iter it = { p, p + n };
	const char *k, *v = "";
	size_t kn, vn = 0;
	uint64_t val;
	int rc;

	while ((rc = counters ? sp_ext_counter_next(&it, &k, &kn, &val)
			      : sp_ext_pair_next(&it, &k, &kn, &v, &vn)) > 0) {
		if (!good_key(k, kn))
			return "a key holds a NUL byte or '='";
		if (memchr(v, 0, vn))
			return "a value holds a NUL byte";
	}
	return rc ? MALFORMED : NULL;
}

static const char *
check_event(const uint8_t *p, size_t n, struct sp_ext_bounds *b)
{
	struct sp_ext_event e;

	if (sp_ext_event_decode(p, n, &e))
		return MALFORMED;
	if (e.index != b->nevents)
		return "event index out of order";
	if (memchr(e.name, 0, e.name_len))
		return "event name holds a NUL byte";
	if (!e.period && !e.freq)
		return "event with neither period nor frequency";
	b->nevents++;
	return NULL;
}

static const char *
check(uint8_t tag, const uint8_t *p, size_t n, struct sp_ext_bounds *b)
{
	struct sp_ext_comm c;
	struct sp_ext_lost l;
	struct sp_ext_exit e;
	struct sp_ext_buildid id;
	struct sp_ext_weight w;
	enum sp_wait_state s;

	switch (tag) {
	case SP_EXT_HOST:
	case SP_EXT_STATS:
		return check_pairs(p, n, tag == SP_EXT_STATS);
	case SP_EXT_COMM:
		if (sp_ext_comm_decode(p, n, &c))
			return MALFORMED;
		return memchr(c.name, 0, c.name_len) ? "name holds a NUL byte"
						     : NULL;
	case SP_EXT_LOST:
		return sp_ext_lost_decode(p, n, &l) ? MALFORMED : NULL;
	case SP_EXT_EXIT:
		return sp_ext_exit_decode(p, n, &e) ? MALFORMED : NULL;
	case SP_EXT_BUILDID:
		if (sp_ext_buildid_decode(p, n, &id))
			return MALFORMED;
		return id.module_id >= b->nmodules ? "undefined module" : NULL;
	case SP_EXT_EVENT:
		return check_event(p, n, b);
	case SP_EXT_WEIGHT:
		if (sp_ext_weight_decode(p, n, &w))
			return MALFORMED;
		return w.event >= b->nevents ? "undefined event" : NULL;
	case SP_EXT_WAIT:
		return sp_ext_wait_decode(p, n, &s) ? MALFORMED : NULL;
	case SP_EXT_PYCODE:
	case SP_EXT_PYNODE:
	case SP_EXT_PYSTACK:
		return sp_py_check_ext(&b->py, tag, p, n, MALFORMED);
	}
	return NULL;
}

int
sp_ext_check(uint8_t tag, const uint8_t *p, size_t n, struct sp_ext_bounds *b,
	     const char **why)
{
	*why = check(tag, p, n, b);
	if (!*why)
		return 0;
	return *why == MALFORMED ? -EBADMSG : -EINVAL;
}
