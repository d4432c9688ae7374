/* pyids.c: Python functions and stack nodes interned for the spool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/ext_py.h"
#include "common/htab.h"
#include "sp-record/python/pyids.h"
#include "common/banned.h"

struct rec_pyids {
	struct rec_spoolout *out;
	struct sp_htab *codes; /* firstline, name length, name, file -> id */
	struct sp_htab *nodes; /* struct node_key -> id */
	uint32_t ncodes, nnodes;
	struct sp_buf key;
};

struct node_key {
	uint32_t prefix, code;
	int32_t line;
	uint32_t entry;
};

struct rec_pyids *
rec_pyids_new(struct rec_spoolout *out)
{
	struct rec_pyids *ids = calloc(1, sizeof(*ids));

	if (!ids)
		return NULL;
	ids->out = out;
	ids->codes = sp_htab_new();
	ids->nodes = sp_htab_new();
	if (!ids->codes || !ids->nodes) {
		rec_pyids_free(ids);
		errno = ENOMEM;
		return NULL;
	}
	return ids;
}

void
rec_pyids_free(struct rec_pyids *ids)
{
	if (!ids)
		return;
	sp_htab_free(ids->codes);
	sp_htab_free(ids->nodes);
	sp_buf_release(&ids->key);
	free(ids);
}

int
rec_pyids_code(struct rec_pyids *ids, const struct rec_pycode *c, uint32_t *id)
{
	struct sp_ext_pycode rec;
	uint64_t name_len = strlen(c->name), *slot;
	bool added = false;
	int rc;

	sp_buf_reset(&ids->key);
	if (sp_buf_add(&ids->key, &c->firstlineno, sizeof(c->firstlineno)) ||
	    sp_buf_add(&ids->key, &name_len, sizeof(name_len)) ||
	    sp_buf_adds(&ids->key, c->name) ||
	    sp_buf_adds(&ids->key, c->filename))
		return rec_spoolout_wr(ids->out, -ENOMEM);
	slot = sp_htab_slot(ids->codes, ids->key.data, ids->key.len,
			    ids->ncodes, &added);
	if (!slot)
		return rec_spoolout_wr(ids->out, -ENOMEM);
	*id = (uint32_t)*slot;
	if (!added)
		return 0;
	ids->ncodes++;
	rec.id = *id;
	rec.firstline = c->firstlineno;
	rec.name = c->name;
	rec.name_len = (size_t)name_len;
	rec.file = c->filename;
	rec.file_len = strlen(c->filename);
	rc = sp_ext_pycode_encode(rec_spoolout_scratch(ids->out), &rec);
	return rc ? rec_spoolout_wr(ids->out, rc)
		  : rec_spoolout_ext(ids->out, SP_EXT_PYCODE);
}

int
rec_pyids_node(struct rec_pyids *ids, uint32_t prefix, uint32_t code,
	       int32_t line, bool entry, uint32_t *id)
{
	struct node_key k = { prefix, code, line, entry };
	struct sp_ext_pynode rec;
	bool added = false;
	uint64_t *slot;
	int rc;

	slot = sp_htab_slot(ids->nodes, &k, sizeof(k), ids->nnodes, &added);
	if (!slot)
		return rec_spoolout_wr(ids->out, -ENOMEM);
	*id = (uint32_t)*slot;
	if (!added)
		return 0;
	ids->nnodes++;
	rec.id = *id;
	rec.prefix = prefix;
	rec.code = code;
	rec.line = line;
	rec.flags = entry ? SP_PYNODE_ENTRY : 0;
	rc = sp_ext_pynode_encode(rec_spoolout_scratch(ids->out), &rec);
	return rc ? rec_spoolout_wr(ids->out, rc)
		  : rec_spoolout_ext(ids->out, SP_EXT_PYNODE);
}
