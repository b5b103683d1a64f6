# Ballot arithmetic as docs/semantics.md ("Ballot arithmetic") defines it: functions of
# the wave's W bits of an i64 ballot, relative to the workitem's own lane, reading no
# other lane.
# Launch: n = 8, one wave of 8. Args: x = i64[-1, 0, 6, 255, 256, -9223372036854775808,
#   96, 1], out zeroed (48 values).
# b = ballot(lane() % 3 == 0) has the bits of lanes 0, 3 and 6: 0b01001001 = 73.
# Oracle, per workitem g (its lane is g):
#   out[g]      = ballot_bit_count(b) = 3 in every lane;
#   out[g + 8]  = ballot_inclusive_bit_count(b): 1, 1, 1, 2, 2, 2, 3, 3;
#   out[g + 16] = ballot_exclusive_bit_count(b): 0, 1, 1, 1, 2, 2, 2, 3;
#   out[g + 24] = ballot_find_lsb(x[g]), of the wave's 8 bits: 0, -1 (no bit), 1, 0,
#                 -1 (256 is bit 8: past the wave), -1 (bit 63: past it), 5, 0;
#   out[g + 32] = ballot_find_msb(x[g]): 7 (-1 has all 8 wave bits), -1, 2, 7, -1, -1,
#                 6, 0;
#   out[g + 40] = inverse_ballot(x[g]), bit g of x[g]: 1, 0, 1, 1, 0, 0, 1, 0.
# A compiler whose exclusive count includes the lane gives out[16..23] = out[8..15]; one
# that counts bits past the wave's lanes gives out[4] or out[5] another value than -1.
# difftest: launch n=8 wave=8
# difftest: arg x = i64[-1, 0, 6, 255, 256, -9223372036854775808, 96, 1]
# difftest: arg out = i32[0] * 48
def ballot_arithmetic(x: Buffer[i64], out: Buffer[i32]):
    g = gid()
    b = ballot(lane() % 3 == 0)
    out[g] = ballot_bit_count(b)
    out[g + 8] = ballot_inclusive_bit_count(b)
    out[g + 16] = ballot_exclusive_bit_count(b)
    out[g + 24] = ballot_find_lsb(x[g])
    out[g + 32] = ballot_find_msb(x[g])
    out[g + 40] = i32(inverse_ballot(x[g]))
