; Tile size of a streaming kernel: y = x + 1 over 16384 f32 (64 KB) in tiles of TILE 32-byte blocks,
; one tile at a time (DMA in, VADDS, DMA out, then BARRIER ALL before the next tile reuses the
; buffers). Larger tiles pay each DMA's latency fewer times. Sweep it with
;     vcore sweep programs/sweep_tile.asm -D TILE=8,16,32,64,128,256 --profile 950,a2 --plot sweep.png
; TILE must be a multiple of 8 (one VADDS iteration is 8 blocks) that divides 2048 (the data's
; blocks), at most 256 (UB room for x and y).
.equ TILE, 64                  ; blocks per tile (the default: 2 KB)
.equ BYTES, 65536
.equ X, 0x0                    ; UB: the tile of x
.equ Y, 0x10000                ; UB: the tile of y
.equ GY, 0x10000               ; GM: y
    MOV S1, 0                  ; the tile's GM offset
tile:
    DMA.GM2UB [X], gm[S1], len=TILE
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [Y], [X], 1.0, repeat=TILE / 8
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S1 + GY], [Y], len=TILE
    BARRIER ALL                ; the next tile's DMA in and VADDS reuse X and Y
    ADD S1, S1, TILE * 32
    BLT S1, BYTES, tile
    HALT

.gmfill 0x0, f32, 8192, 2.0
.gmfill 0x8000, f32, 8192, -0.5
; EXPECT gm:0x10000:f32:2 = 3.0 3.0
; EXPECT gm:0x17ffc:f32:2 = 3.0 0.5
; EXPECT gm:0x1fff8:f32:2 = 0.5 0.5
