# unw_segs.sed: turns the folded stacks of unw_segs.rs into unw_deep.c's
# shape for unw_deep.awk (t2008): the crate's prefix and Rust's runtime
# between the two mains go, the inlined `deeper` goes, a switch of
# segments between two levels (on_segment;seg_switch;seg_entry) goes, and
# so does one where a truncated stack starts; a leaf in on_segment (its
# mmap, munmap) and fill's inlined iterator become one leaf, and so do
# the inlined atomic loads of a level's loop (TARGET.load) and deeper's
# stack_pointer; the C library's memset or memcpy called by a level (its
# buffer's zeroing) is the level's fill.  Anything else is left for the
# judge to refuse.
s/unw_segs:://g
s/<stack truncated>;\(on_segment;\)\{0,1\}seg_switch;seg_entry;/<stack truncated>;/
s/;main;std::rt::lang_start_internal;.*;main;walk;/;main;walk;/
:a
s/\(descend_[abc]\);deeper;/\1;/
ta
:b
s/\(descend_[abc]\);on_segment;seg_switch;seg_entry;\(descend_[abc]\)/\1;\2/
tb
s/;fill;<core::.*\( [0-9][0-9]*\)$/;fill\1/
s/\(descend_[abc]\)\(;<\{0,1\}core::[^;]*\)*\( [0-9][0-9]*\)$/\1\3/
s/\(descend_[abc]\);__mem\(set\|cpy\|move\)[a-z_0-9]*\( [0-9][0-9]*\)$/\1;fill\3/
s/\(descend_[abc]\)\(;deeper\)\{0,1\}\(;stack_pointer\)\{0,1\}\( [0-9][0-9]*\)$/\1\4/
s/;on_segment\(;seg_switch\)\{0,1\}\(;[A-Za-z_][A-Za-z_0-9]*\)*\( [0-9][0-9]*\)$/;bottom\3/
