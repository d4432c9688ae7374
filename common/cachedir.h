/*
 * cachedir.h: where stackpulse keeps files for later runs: the symbol
 * cache (sp-symbolize) and the module files sp-record keeps by build id,
 * which sp-symbolize reads back.
 */
#ifndef SP_CACHEDIR_H
#define SP_CACHEDIR_H

/*
 * ${XDG_CACHE_HOME:-$HOME/.cache}/stackpulse, malloc'ed, or NULL when
 * there is no absolute home to put it in (a relative XDG_CACHE_HOME is
 * ignored, as the XDG base directory spec says) or no memory.
 */
char *sp_cache_dir(void);

#endif
