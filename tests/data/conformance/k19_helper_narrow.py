# Helpers taking and returning narrow types; literals meeting an argument and a return
# (semantics "Literals": a literal "where a literal meets a value of a narrow or unsigned
# type (an operand, a variable it is assigned to, an element it is stored into, an
# argument, a return) it is of that type when its value fits there"; "Widening is
# implicit ... (operators, assignments, arguments, returns, stores)").
# Launch n=2, wave 2. b = u8[250, 5], c = i8[-128, 100]
# add200(x: u8) -> u8: return x + 200 (u8 arithmetic): 250 -> 450 - 256 = 194; 5 -> 205
# neg(y: i8) -> i16: return -y  (i8 negation wraps, then widens): -128 -> -128; 100 -> -100
# lit() -> u16: return 65535
# wide(x: u8) -> u32: return x (widened): 250, 5
# Expected o (i64) for lane g:
#  o[g]   = add200(b[g]): 194, 205
#  o[2+g] = neg(c[g]): -128, -100
#  o[4+g] = lit() + 1 (u16 arithmetic wraps): 0, 0
#  o[6+g] = wide(b[g]) * 20000000 (u32: 250*2e7 = 5e9 mod 2^32 = 705032704; 5 -> 100000000)
#  o[8+g] = add200(255): 255 + 200 = 455 - 256 = 199, both lanes
# difftest: launch n=2 wave=2
# difftest: entry k
# difftest: arg b = u8[250, 5]
# difftest: arg c = i8[-128, 100]
# difftest: arg o = i64[0] * 10
def add200(x: u8) -> u8:
    return x + 200

def neg(y: i8) -> i16:
    return -y

def lit() -> u16:
    return 65535

def wide(x: u8) -> u32:
    return x

def k(b: Buffer[u8], c: Buffer[i8], o: Buffer[i64]):
    g = gid()
    o[g] = i64(add200(b[g]))
    o[2 + g] = i64(neg(c[g]))
    o[4 + g] = i64(lit() + 1)
    o[6 + g] = i64(wide(b[g]) * 20000000)
    o[8 + g] = i64(add200(255))

# What the header derives, for tests/oracles/test_conformance.py (its docstring has the
# format; these lines come after the kernel, so its line numbers are the header's):
# expect: o = [194, 205, -128, -100, 0, 0, 705032704, 100000000, 199, 199]
