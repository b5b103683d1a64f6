# A `match` (docs/semantics.md, "Multi-way branches"): the lanes take the first case
# their value matches (none where none does), each case's wave operations see only that
# case's lanes, the lanes meet again after the match, and a case may leave the loop
# around it (`break`) or the kernel (`return`). Translations write it as the language's
# switch (OpenCL C, GLSL, WGSL; a `break` of the loop inside a case keeps the if chain;
# in GLSL and WGSL, where case 1 | 2 has wave operations, the switch picks the case and an
# if chain runs it, since SPIR-V's switch may part lanes of different values in one case).
# Launch: n = 8, one wave of 8. Args: out zeroed (24 values). v = lane % 4.
# Oracle, per workitem g (its lane is g):
#   out[g]: case 0 (lanes 0, 4): wave_sum(1) = 2; case 1 | 2 (lanes 1, 2, 5, 6):
#           wave_sum(10) = 40; case _ (lanes 3, 7): ballot_bit_count(ballot(True)) = 2:
#           2, 40, 40, 2, 2, 40, 40, 2;
#   in the loop (4 trips), lanes 3, 7 break and lanes 0, 4 return in the first trip; the
#   others match no case and add wave_sum(1) = 4 at each trip:
#   out[g + 8]  = 0, 16, 16, 0, 0, 16, 16, 0;
#   out[g + 16] = wave_sum(1) after the loop, lanes 0 and 4 gone: 0, 6, 6, 6, 0, 6, 6, 6.
# A switch whose cases fall through (no `break`) gives out[0] = 20: lanes 0 and 4 run
# case 1 | 2's arm too.
# difftest: launch n=8 wave=8
# difftest: arg out = i32[0] * 24
def switch_cases(out: Buffer[i32]):
    g = gid()
    v = lane() % 4
    match v:
        case 0:
            out[g] = wave_sum(1)
        case 1 | 2:
            out[g] = wave_sum(10)
        case _:
            out[g] = ballot_bit_count(ballot(True))
    for k in range(0, 4):
        match v:
            case 3:
                break
            case 0:
                return
        out[g + 8] = out[g + 8] + wave_sum(1)
    out[g + 16] = wave_sum(1)
