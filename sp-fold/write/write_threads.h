/*
 * write_threads.h: --format threads, the samples of each thread of a
 * record stream: count, share, process, thread and name, busiest first.
 */
#ifndef SP_FOLD_WRITE_WRITE_THREADS_H
#define SP_FOLD_WRITE_WRITE_THREADS_H

#include "sp-fold/model/profile.h"

fold_writer_fn fold_write_threads;

#endif
