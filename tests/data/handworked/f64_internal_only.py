# f64 used only inside the kernel (no f64 parameter): i32 in, i32 out.
#   o[g] = i32(f64(x) * f64(0.5) + f64(0.25)) : x = [3, -3, 7, 1] -> 1.75 -> 1 ; -1.25 -> -1 ; 3.75 -> 3 ; 0.75 -> 0
#   expect o = [1, -1, 3, 0]
# difftest: launch n=4 wave=4
# difftest: arg x = i32[3, -3, 7, 1]
# difftest: arg o = i32[0] * 4
def k(x: Buffer[i32], o: Buffer[i32]):
    g = gid()
    o[g] = i32(f64(x[g]) * f64(0.5) + f64(0.25))
