; Kernel zoo: FloorMod on int32, z = x - floor(x / y) * y (the sign of y), register integer remainder, 4 cores.
; Sample: examples/05_simd_simt_hybrid/02_best_practices/simd_simt_high_performance/floor_mod.asc
; Port of the CANN asc-devkit sample .../simd_simt_high_performance/floor_mod.asc, its SIMD case
; (SCENARIO_NUM = 1, floor_mod_simd_custom: "SIMD Reg矢量计算"); the other cases are SIMT code, which
; vcore does not model. Each core (numBlocks cores) takes DATA_LEN_PER_CORE elements at
; block_idx * DATA_LEN_PER_CORE and runs process_tiles: TILE_NUM_PER_CORE tiles of TILE_LENGTH int32,
; ping-pong buffered in UB (x, y, z ping at ub_buf + 0, 1, 2 TILE_LENGTH; pong at + 3, 4, 5), with
; the sample's events: buffer b (tile i, i mod 2 = b) uses event b,
;     V -> MTE2   event b   x_b, y_b free        MTE2 -> V   event b   x_b, y_b full
;     V -> MTE3   event b   z_b full             MTE3 -> V   event b   z_b free
; (asc_sync_notify / asc_sync_wait = SETFLAG / WAITFLAG; the four "free" flags are set before the
; loop and consumed after it, as the sample does). The loop body is the macro TILE_STEP, one use per
; buffer. Its vector function, floor_mod_simd, line by line:
;     asc_duplicate_scalar(default_value, -1)            VDUP.s32 V4, -1, P7
;     asc_duplicate_scalar(sign_value, 0x80000000)       VDUP.s32 V5, -2147483648, P7
;     for i < loop_times = ceil_div(count, 64):          LOOP S8
;       mask = asc_update_mask_b32(mask_count)             PUPDATE.b32 P0, S7
;       asc_loadalign(x_value, x_addr + i * 64)            VLD.s32 V0, [S1], post=64
;       asc_loadalign(y_value, y_addr + i * 64)            VLD.s32 V1, [S2], post=64
;       asc_div(temp, x, y); asc_mul(temp, y, temp);       VREM.s32 V2, V0, V1, P0
;         asc_sub(mod_value, x, temp)                        (one instruction, see below)
;       asc_ne_scalar(select_mask, y, 0)                   VCMPS.NE.s32 P1, V1, 0, P0
;       asc_select(temp, mod_value, default, select_mask)  VSEL.s32 V3, V2, V4, P1
;       asc_add(mod_value, temp, y)                        VADD.s32 V2, V3, V1, P0
;       asc_ne_scalar(adjust_mask, temp, 0)                VCMPS.NE.s32 P2, V3, 0, P0
;       asc_and(x, temp, sign_value)                       VAND.s32 V0, V3, V5, P0
;       asc_and(y, y, sign_value)                          VAND.s32 V1, V1, V5, P0
;       asc_ne(select_mask, x, y)                          VCMP.NE.s32 P1, V0, V1, P0
;       asc_and(adjust_mask, select_mask, adjust_mask)     PAND P2, P1, P2
;       asc_select(mod_value, mod_value, temp, adjust)     VSEL.s32 V2, V2, V3, P2
;       asc_storealign(z_addr + i * 64, mod_value, mask)   VST.s32 [S3], V2, P0, post=64
; Differences from the sample, and why:
; - The remainder: the sample computes x - trunc(x / y) * y with asc_div, asc_mul, asc_sub; vcore's
;   VREM.s32 is defined as exactly that value (the quotient truncated, as the 950's integer Div) and
;   priced as the three instructions together, so the port writes it once. VDIV.s32, VMUL.s32 and
;   VSUB.s32 in its place give the same bits (and the same cycles, give or take the register
;   dependencies). The sign fix is the sample's: the sign bits of r and y compared (AND 0x80000000,
;   NE), with r != 0; docs/language.md shows the same fix with VXOR and a signed compare.
; - A zero divisor: the sample's "divide-by-zero protection" selects -1 where y == 0 (before the sign
;   fix, which leaves it -1), whatever VREM gives for x % 0 (x); so does the port, but its data, like
;   the sample's, has no zero divisor (gen_data.py replaces 0 by 7), and the golden covers y != 0.
; - Size: the sample runs 64 cores on [8192, 8192] in tiles of 8192; the port runs 4 cores on [4, 2048]
;   (8192 int32, the generator's arrays stay small) in tiles of TILE_LENGTH = 512 (4 per core, so the
;   ping-pong loop turns twice). The sample's sizes are constexpr; as the port chose its own, they
;   are a tiling struct in GM, read with LD (the tile length stays a constant: a DMA's len= is one):
;       TILING + 0  input_total_length 8192   TILING + 4  data_len_per_core 2048
;       TILING + 8  tile_length 512 (the count passed to the vector function)
; Data: gen/floor_mod.py (the sample's gen_data.py, seed 20260516: x in [-100000, 100000], y in
; [-127, 127] without 0, every 64th x an exact multiple of y; golden its floored modulo, equal to
; numpy.mod). Its verify_result.py wants every element exact: rtol = atol = 0.
; Run: vcore run programs/kernels/floor_mod.asm --cores 4
.equ GX, 0x00000           ; GM: x ("input_self"), [4, 2048] int32
.equ GY, 0x08000           ; GM: y ("input_other")
.equ GZ, 0x10000           ; GM: z
.equ TILING, 0x18000       ; GM: the tiling struct
.equ TILE_LENGTH, 512      ; int32 elements of a tile
.equ TILE_BYTES, TILE_LENGTH * 4
.equ TILE_BLOCKS, TILE_BYTES / 32
.equ ONE_REPEAT_SIZE, 64   ; asc_get_vf_len() / sizeof(int32_t)
.equ X_PING, 0 * TILE_BYTES
.equ Y_PING, 1 * TILE_BYTES
.equ Z_PING, 2 * TILE_BYTES
.equ X_PONG, 3 * TILE_BYTES
.equ Y_PONG, 4 * TILE_BYTES
.equ Z_PONG, 5 * TILE_BYTES
.gm TILING, u32, 8192, 2048, TILE_LENGTH

.macro TILE_STEP b, xb, yb, zb
    WAITFLAG V, MTE2, \b                   ; x_b, y_b free (the function that read them is done)
    DMA.GM2UB [\xb], gm[S5 + GX], len=TILE_BLOCKS
    DMA.GM2UB [\yb], gm[S5 + GY], len=TILE_BLOCKS
    SETFLAG MTE2, V, \b                    ; x_b, y_b full
    WAITFLAG MTE2, V, \b
    WAITFLAG MTE3, V, \b                   ; z_b free (its copy-out is done)
    MOV S1, \xb                            ; asc_vf_call<floor_mod_simd>(z_local, x_local, y_local, TILE_LENGTH)
    MOV S2, \yb
    MOV S3, \zb
    MOV S7, S9                             ; count (mask_count)
    VF.BEGIN
        PSET.b32 P7, ALL
        VDUP.s32 V4, -1, P7                ; default_value
        VDUP.s32 V5, -2147483648, P7       ; sign_value = FMOD_B32_SIGN (0x80000000)
        LOOP S8
            PUPDATE.b32 P0, S7
            VLD.s32 V0, [S1], post=ONE_REPEAT_SIZE
            VLD.s32 V1, [S2], post=ONE_REPEAT_SIZE
            VREM.s32 V2, V0, V1, P0        ; mod_value = x - trunc(x / y) * y (the sign of x)
            VCMPS.NE.s32 P1, V1, 0, P0     ; y != 0
            VSEL.s32 V3, V2, V4, P1        ; temp = y != 0 ? mod_value : -1
            VADD.s32 V2, V3, V1, P0        ; temp + y
            VCMPS.NE.s32 P2, V3, 0, P0     ; temp != 0
            VAND.s32 V0, V3, V5, P0        ; sign bit of temp
            VAND.s32 V1, V1, V5, P0        ; sign bit of y
            VCMP.NE.s32 P1, V0, V1, P0     ; the signs differ
            PAND P2, P1, P2                ; ... and temp != 0
            VSEL.s32 V2, V2, V3, P2        ; z = both ? temp + y : temp
            VST.s32 [S3], V2, P0, post=ONE_REPEAT_SIZE
        ENDLOOP
    VF.END
    SETFLAG V, MTE2, \b
    SETFLAG V, MTE3, \b                    ; z_b full
    WAITFLAG V, MTE3, \b
    DMA.UB2GM gm[S5 + GZ], [\zb], len=TILE_BLOCKS
    SETFLAG MTE3, V, \b
    ADD S5, S5, TILE_BYTES
.endm

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 4]              ; data_len_per_core
    LD.u32 S9, gm[TILING + 8]              ; tile_length, the count of each function call
    SHL S4, S2, 2                          ; in bytes
    MUL S5, S1, S4                         ; core_offset = block_idx * DATA_LEN_PER_CORE, in bytes
    ADD S6, S5, S4                         ; the slice's end
    ADD S8, S9, ONE_REPEAT_SIZE - 1
    SHR S8, S8, 6                          ; loop_times = ceil_div(count, one_repeat_size)
    SETFLAG V, MTE2, 0                     ; every buffer starts free
    SETFLAG V, MTE2, 1
    SETFLAG MTE3, V, 0
    SETFLAG MTE3, V, 1
tiles:
    TILE_STEP 0, X_PING, Y_PING, Z_PING
    TILE_STEP 1, X_PONG, Y_PONG, Z_PONG
    BLT S5, S6, tiles
    WAITFLAG V, MTE2, 0                    ; consume the last "free" flags
    WAITFLAG V, MTE2, 1
    WAITFLAG MTE3, V, 0
    WAITFLAG MTE3, V, 1
    HALT

; RUN --cores 4
; LOAD gm:0x0 = data/floor_mod/x.npy
; LOAD gm:0x8000 = data/floor_mod/y.npy
; EXPECT gm:0x10000:s32:8192 ~= data/floor_mod/golden.npy rtol=0 atol=0
