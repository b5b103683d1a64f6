# Literals meeting narrow/unsigned types as arguments and returns (semantics.md
# "Literals": "where a literal meets a value of a narrow or unsigned type (an operand, a
# variable it is assigned to, an element it is stored into, an argument, a return) it is
# of that type when its value fits there").
#   o[0] = add8(250, 10) = 4 (u8 wraps) ; o[1] = top() = 255 ; o[2] = add8(x, 255) with x: u8 = 1 -> 0
#   o[3] = u8 element store of literal 200 then + 100 -> 44
#   expect o = [4, 255, 0, 44]
#   w[0] = big(18446744073709551615) = that (u64 param) ; w[1] = big(1) = 1 ; w[2] = shuffle of a u64 literal = 2^63
#   expect w = [2**64-1, 1, 2**63]
# difftest: launch n=1 wave=1
# difftest: arg o = u8[0] * 4
# difftest: arg w = u64[0] * 3
def k(o: Buffer[u8], w: Buffer[u64]):
    o[0] = add8(250, 10)
    o[1] = top()
    x: u8 = 1
    o[2] = add8(x, 255)
    o[3] = 200
    o[3] = o[3] + 100
    w[0] = big(18446744073709551615)
    w[1] = big(1)
    w[2] = shuffle(9223372036854775808, 0)

def add8(a: u8, b: u8) -> u8:
    return a + b

def top() -> u8:
    return 255

def big(v: u64) -> u64:
    return v
