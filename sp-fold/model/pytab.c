/* pytab.c: the Python frame tables of pytab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/spool.h"
#include "sp-fold/model/pytab.h"
#include "common/banned.h"

int
fold_pytab_init(struct fold_pytab *t)
{
	memset(t, 0, sizeof(*t));
	t->frame_idx = sp_htab_new();
	t->marker = SP_NONE;
	return t->frame_idx ? 0 : -ENOMEM;
}

void
fold_pytab_release(struct fold_pytab *t)
{
	size_t i;

	for (i = 0; i < t->ncodes; i++) {
		free(t->codes[i].name);
		free(t->codes[i].file);
	}
	free(t->codes);
	free(t->nodes);
	sp_htab_free(t->frame_idx);
	memset(t, 0, sizeof(*t));
}

int
fold_pytab_code(struct fold_pytab *t, const char *name, size_t name_len,
		const char *file, size_t file_len, uint32_t firstline)
{
	struct fold_pycode *c;

	if (SP_GROW(t->codes, t->acodes, t->ncodes + 1))
		return -ENOMEM;
	c = &t->codes[t->ncodes];
	c->name = strndup(name, name_len);
	c->file = strndup(file, file_len);
	c->firstline = firstline;
	if (!c->name || !c->file) {
		free(c->name);
		free(c->file);
		return -ENOMEM;
	}
	t->ncodes++;
	return 0;
}

int
fold_pytab_node(struct fold_pytab *t, uint32_t prefix, uint32_t code,
		int32_t line, bool entry)
{
	if ((prefix != SP_NONE && prefix >= t->nnodes) || code >= t->ncodes)
		return -EBADMSG;
	if (SP_GROW(t->nodes, t->anodes, t->nnodes + 1))
		return -ENOMEM;
	t->nodes[t->nnodes++] =
	    (struct fold_pynode){ prefix, code, line, entry };
	return 0;
}
