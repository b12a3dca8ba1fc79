; Recipe: DMA GM -> UB -> GM with gaps, synchronised with flags.
;
; GM holds 4 rows of 64 bytes; row r = [A_r | B_r], one datablock each, A_r = r + 1 and
; B_r = 100 + r (16 f16 each). DMA fields count 32-byte units; block k of len*32 bytes goes
; from src + k*(len + srcgap)*32 to dst + k*(len + dstgap)*32.
;   1. GM2UB blocks=4 len=1 srcgap=1: pick the A column, packed in UB at 0x0000 (MTE2).
;   2. GM2UB of the B column the same way, to UB 0x0100.
;   3. V multiplies the A column by 10, after MTE2 is done (SETFLAG/WAITFLAG MTE2 -> V).
;   4. UB2GM blocks=4 len=1 dstgap=2: spread A back out, one block every 96 bytes, after V
;      is done (V -> MTE3); the gaps in GM are not written.
;   5. UB2GM of the B column as one 128-byte block (len=4), after MTE2 (MTE2 -> MTE3).
.gmfill 0x000, f16, 16, 1.0
.gmfill 0x020, f16, 16, 100.0
.gmfill 0x040, f16, 16, 2.0
.gmfill 0x060, f16, 16, 101.0
.gmfill 0x080, f16, 16, 3.0
.gmfill 0x0a0, f16, 16, 102.0
.gmfill 0x0c0, f16, 16, 4.0
.gmfill 0x0e0, f16, 16, 103.0

    DMA.GM2UB [0x0000], gm[0x0000], blocks=4, len=1, srcgap=1
    DMA.GM2UB [0x0100], gm[0x0020], blocks=4, len=1, srcgap=1
    SETFLAG MTE2, V, 0
    SETFLAG MTE2, MTE3, 1
    WAITFLAG MTE2, V, 0
    VMULS.f16 [0x0000], [0x0000], 10.0, count=64
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[0x1000], [0x0000], blocks=4, len=1, dstgap=2
    WAITFLAG MTE2, MTE3, 1
    DMA.UB2GM gm[0x2000], [0x0100], len=4
    HALT

; UB: the packed, scaled A column and the packed B column
; EXPECT ub:0x001e:f16:2 = 10 20
; EXPECT ub:0x007e:f16:2 = 40 0
; EXPECT ub:0x0100:f16:1 = 100
; EXPECT ub:0x017e:f16:2 = 103 0
; GM: block k at 0x1000 + 96k, zeros between
; EXPECT gm:0x1000:f16:1 = 10
; EXPECT gm:0x101e:f16:2 = 10 0
; EXPECT gm:0x105e:f16:2 = 0 20
; EXPECT gm:0x107e:f16:2 = 20 0
; EXPECT gm:0x10be:f16:2 = 0 30
; EXPECT gm:0x111e:f16:2 = 0 40
; EXPECT gm:0x113e:f16:2 = 40 0
; EXPECT gm:0x2000:f16:1 = 100
; EXPECT gm:0x201e:f16:2 = 100 101
; EXPECT gm:0x205e:f16:2 = 102 103
; EXPECT gm:0x207e:f16:2 = 103 0
