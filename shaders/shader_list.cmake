# Every compute shader the runtime embeds. KEYED shaders get a 32-bit and a 64-bit key variant.
vksort_add_shader(brick/tile_sort.comp KEYED)
vksort_add_shader(brick/merge_split.comp KEYED)
vksort_add_shader(brick/pairs_phase.comp KEYED)
vksort_add_shader(brick/round_gate.comp)
vksort_add_shader(util/copy_words.comp)
