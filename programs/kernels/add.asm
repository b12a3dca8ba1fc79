; Kernel zoo: vector add on 8 cores, double-buffered (BUFFER_NUM = 2, TILE_NUM = 8), f16
; Sample: examples/01_simd_cpp_api/02_features/00_framework/00_pytorch/pybind/add_custom.asc
; (asc-devkit; KernelAdd, the classic add_custom of the AscendC tutorials): z = x + y over
; [8, 2048] half on numBlocks = 8 cores. Each core takes blockLength = totalLength / GetBlockNum()
; = 2048 elements at blockLength * GetBlockIdx(), in tileNum * BUFFER_NUM = 16 tiles of
; tileLength = 2048 / 8 / 2 = 128 halves (256 bytes, one VADD iteration).
; The sample passes totalLength as a kernel argument and divides it by the core count on the core;
; vcore has no scalar divide, so the host-side tiling struct carries both fields, read with LD:
;     TILING + 0  totalLength  16384      TILING + 4  blockLength  2048
; (tileLength is the sample's template parameter STATIC_TILE_LENGTH, here the constant TILE_BYTES.)
; Double buffering as the sample's TQue<VECIN, BUFFER_NUM> queues do it: two UB buffers per queue,
; buffer b (tile i with i mod 2 = b) handed over with event b, so tile i + 1's copy-in (MTE2) runs
; while tile i is added (V) and tile i - 1 copied out (MTE3). The loop body is the macro TILE_STEP,
; used once per buffer.
;     MTE2 -> V   event b   X_b, Y_b are full        V -> MTE2   event b   X_b, Y_b are free again
;     V -> MTE3   event b   Z_b is full              MTE3 -> V   event b   Z_b is free again
; Data: gen/add.py (the sample's gen_data.py: uniform(1, 10) f16 for x and y, golden x + y); its
; verify_result.py compares with rtol = atol = 1e-3 (f16).
; Run: vcore run programs/kernels/add.asm --cores 8
.equ TOTAL_LENGTH, 8 * 2048   ; elements; -D TOTAL_LENGTH=8*2048*16 gives each core 256 tiles (no data file)
.equ GX, 0x0               ; GM: x, [8, 2048] f16
.equ GY, TOTAL_LENGTH * 2  ; GM: y (0x8000)
.equ GZ, TOTAL_LENGTH * 4  ; GM: z (0x10000)
.equ TILING, TOTAL_LENGTH * 6      ; GM: the tiling struct
.equ TILE_BYTES, 256       ; tileLength * sizeof(half)
.equ TILE_BLOCKS, TILE_BYTES / 32
.gm TILING, u32, TOTAL_LENGTH, TOTAL_LENGTH / 8

.macro TILE_STEP b, xb, yb, zb
    WAITFLAG V, MTE2, \b                   ; X_b and Y_b free (the add that read them is done)
    DMA.GM2UB [\xb], gm[S5 + GX], len=TILE_BLOCKS
    DMA.GM2UB [\yb], gm[S5 + GY], len=TILE_BLOCKS
    SETFLAG MTE2, V, \b                    ; X_b, Y_b full
    WAITFLAG MTE2, V, \b
    WAITFLAG MTE3, V, \b                   ; Z_b free (its copy-out is done)
    VADD.f16 [\zb], [\xb], [\yb]
    SETFLAG V, MTE2, \b
    SETFLAG V, MTE3, \b                    ; Z_b full
    WAITFLAG V, MTE3, \b
    DMA.UB2GM gm[S5 + GZ], [\zb], len=TILE_BLOCKS
    SETFLAG MTE3, V, \b
    ADD S5, S5, TILE_BYTES
.endm

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 4]              ; blockLength (elements)
    MUL S4, S2, 2                          ; blockLength in bytes
    MUL S5, S1, S4                         ; this core's slice: blockLength * GetBlockIdx() halves
    ADD S6, S5, S4                         ; the slice's end
    SETFLAG V, MTE2, 0                     ; every buffer starts free
    SETFLAG V, MTE2, 1
    SETFLAG MTE3, V, 0
    SETFLAG MTE3, V, 1
tiles:
    TILE_STEP 0, 0x0000, 0x0200, 0x0400
    TILE_STEP 1, 0x0100, 0x0300, 0x0500
    BLT S5, S6, tiles
    WAITFLAG V, MTE2, 0                    ; consume the last "free" flags
    WAITFLAG V, MTE2, 1
    WAITFLAG MTE3, V, 0
    WAITFLAG MTE3, V, 1
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/add/x.npy
; LOAD gm:0x8000 = data/add/y.npy
; EXPECT gm:0x10000:f16:16384 ~= data/add/golden.npy rtol=1e-3 atol=1e-3
