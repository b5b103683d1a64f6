# clz/ctz/popcount/bit_reverse of 0 and of the top bit at each width (semantics "Bit
# operations": "`clz(x)` / `ctz(x)`: the zero bits above the highest / below the lowest
# set bit within the N bits, N for 0"; "`bit_reverse(i8(1))` is -128"; result in the
# first argument's type).
# Launch n=1. z8=i8[0,-128,1,-1], zu16=u16[0,32768], z64=i64[0,-9223372036854775808], zu64=u64[0,1]
# Expected o (i64):
#  [0] clz(i8 0)=8      [1] ctz(i8 0)=8      [2] clz(i8 -128)=0   [3] ctz(i8 -128)=7
#  [4] popcount(i8 -128)=1 [5] bit_reverse(i8 -128)=1
#  [6] clz(u16 0)=16    [7] ctz(u16 0)=16    [8] clz(u16 32768)=0 [9] ctz(u16 32768)=15
#  [10] bit_reverse(u16 32768)=1  [11] popcount(~u16 0)=16
#  [12] clz(i64 0)=64   [13] ctz(i64 0)=64   [14] clz(i64 MIN)=0  [15] ctz(i64 MIN)=63
#  [16] bit_reverse(i64 MIN)=1  [17] bit_reverse(u64 1)=2^63 -> as i64(...) = MIN
#  [18] clz(u64 1)=63   [19] ctz(u64 0)=64   [20] popcount(i64 MIN)=1
#  [21] clz(i16(-1))=0  [22] bit_reverse(i16 1) = -32768  [23] popcount(i8 -1) = 8
# difftest: launch n=1 wave=1
# difftest: arg z8 = i8[0, -128, 1, -1]
# difftest: arg zu16 = u16[0, 32768]
# difftest: arg z64 = i64[0, -9223372036854775808]
# difftest: arg zu64 = u64[0, 1]
# difftest: arg o = i64[0] * 24
def k(z8: Buffer[i8], zu16: Buffer[u16], z64: Buffer[i64], zu64: Buffer[u64], o: Buffer[i64]):
    a = z8[0]
    b = z8[1]
    o[0] = i64(clz(a))
    o[1] = i64(ctz(a))
    o[2] = i64(clz(b))
    o[3] = i64(ctz(b))
    o[4] = i64(popcount(b))
    o[5] = i64(bit_reverse(b))
    c = zu16[0]
    d = zu16[1]
    o[6] = i64(clz(c))
    o[7] = i64(ctz(c))
    o[8] = i64(clz(d))
    o[9] = i64(ctz(d))
    o[10] = i64(bit_reverse(d))
    o[11] = i64(popcount(~c))
    e = z64[0]
    f = z64[1]
    o[12] = clz(e)
    o[13] = ctz(e)
    o[14] = clz(f)
    o[15] = ctz(f)
    o[16] = bit_reverse(f)
    o[17] = i64(bit_reverse(zu64[1]))
    o[18] = i64(clz(zu64[1]))
    o[19] = i64(ctz(zu64[0]))
    o[20] = popcount(f)
    o[21] = i64(clz(i16(z8[3])))
    o[22] = i64(bit_reverse(i16(z8[2])))
    o[23] = i64(popcount(z8[3]))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [8, 8, 0, 7, 1, 1, 16, 16, 0, 15, 1, 16, 64, 64, 0, 63, 1, -9223372036854775808, 63, 64, 1, 0, -32768, 8]
