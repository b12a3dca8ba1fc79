; Cookbook recipe 16: transpose a 16 x 16 f16 tile, then a 32 x 48 matrix stored tile by tile (each
; 16 x 16 tile's 512 bytes together, tiles row by row) into its 48 x 32 transpose, one VTRANS per
; row of tiles with repeat= and the tile strides.
;   TILE holds (y, x) = 16 y + x; TOUT gets (y, x) = 16 x + y
;   A's memory holds 0, 1, ..., 3071: tile (a, b) at A + (3 a + b) * 512, its (y, x) = (3 a + b) * 256 + 16 y + x
;   B = A transposed: tile (b, a) at B + (2 b + a) * 512 holds tile (a, b) of A transposed
;     tile (2, 1) at B + 5 * 512 = 0x3e00: row 0 = 1280 + 16 y, row 1 = 1281 + 16 y
;     tile (1, 0) at B + 2 * 512 = 0x3800: row 0 = 256 + 16 y; tile (0, 1) at 0x3600: row 0 = 768 + 16 y
.equ TILE, 0x0
.equ TOUT, 0x200
.equ A,    0x400
.equ B,    0x3400
    VARANGE.f16 [TILE], 0.0, repeat=2                     ; 0, 1, ..., 255
    VARANGE.s16 [A], 0, repeat=24                         ; 0, 1, ..., 3071 (exact in s16)
    BARRIER V
    VTRANS.f16 [TOUT], [TILE]
    VTRANS.s16 [B], [A], repeat=3, srcrep=1, dstrep=2                ; tiles (0, b) to (b, 0)
    VTRANS.s16 [B + 512], [A + 3 * 512], repeat=3, srcrep=1, dstrep=2  ; tiles (1, b) to (b, 1)
    HALT
; EXPECT ub:0x200:f16:16 = 0 16 32 48 64 80 96 112 128 144 160 176 192 208 224 240
; EXPECT ub:0x3e00:s16:16 = 1280 1296 1312 1328 1344 1360 1376 1392 1408 1424 1440 1456 1472 1488 1504 1520
; EXPECT ub:0x3e20:s16:4 = 1281 1297 1313 1329
; EXPECT ub:0x3800:s16:4 = 256 272 288 304
; EXPECT ub:0x3600:s16:4 = 768 784 800 816
