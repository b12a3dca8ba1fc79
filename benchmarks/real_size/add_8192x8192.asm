; z = x + y over 8192 x 8192 f16 (64 Mi elements: x at GM 0, y at 128 MiB, z at 256 MiB; run with
; --gm-size 0x18000000 and -D CORES= the --cores), the add sample at issue 30's real size. The cores
; share 4096 tiles of 16384 halves: a core takes CEIL(4096 / CORES) tiles from its block index on (the
; last core the rest), a tile being a DMA of 32 KiB of each input, one VADD of repeat=128 and a DMA
; out. The data is GM's zeros: the run is timed, not checked (programs/kernels/add.asm is).
.equ TOTAL_TILES, 4096
.equ CORES, 64                            ; -D CORES=48 on a2 (the kernel's --cores)
.equ PER_CORE, (TOTAL_TILES + CORES - 1) / CORES
.equ TILE_BYTES, 32768
.equ GY, 0x8000000
.equ GZ, 0x10000000
    MOV S1, BLOCKIDX
    MUL S4, S1, PER_CORE                  ; this core's first tile
    ADD S6, S4, PER_CORE                  ; its end
    BLT S6, TOTAL_TILES + 1, clamped
    MOV S6, TOTAL_TILES
clamped:
    MUL S5, S4, TILE_BYTES                ; byte offset of the tile
    MUL S6, S6, TILE_BYTES                ; end offset
    SETFLAG V, MTE2, 0
    SETFLAG V, MTE2, 1
    SETFLAG MTE3, V, 0
    SETFLAG MTE3, V, 1
    BGE S5, S6, done
tiles:
    ADD S7, S5, GY
    ADD S8, S5, GZ
    WAITFLAG V, MTE2, 0
    DMA.GM2UB [0x0], gm[S5], len=1024
    DMA.GM2UB [0x8000], gm[S7], len=1024
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    WAITFLAG MTE3, V, 0
    VADD.f16 [0x10000], [0x0], [0x8000], repeat=128
    SETFLAG V, MTE2, 0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S8], [0x10000], len=1024
    SETFLAG MTE3, V, 0
    ADD S5, S5, TILE_BYTES
    BLT S5, S6, tiles
done:
    WAITFLAG V, MTE2, 0
    WAITFLAG V, MTE2, 1
    WAITFLAG MTE3, V, 0
    WAITFLAG MTE3, V, 1
    HALT
