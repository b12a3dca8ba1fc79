; Recipe: an in-place chain on the a2 profile, at the very top of its 192 KiB UB.
;
; a2's UB ends at 0x30000 (192 KiB), so its last VL is 0x2ff00..0x2ffff (on 950 UB goes
; up to 0x40000). Each instruction works in place (dst = src, fully overlapping, which is
; allowed). On a2 consecutive V instructions overlap unless BARRIER V stands between them,
; so every dependent step is fenced; on 950 the hardware orders V after V by itself.
;   y = sqrt(relu(x)) + 1, for 64 f32 lanes (lanes 8..63 are 0 -> 1)
; PROFILE a2
.ub 0x2ff00, f32, -4.0, 9.0, -1.0, 16.0, 0.25, 2.25, 100.0, -0.5

    VRELU.f32 [0x2ff00], [0x2ff00]
    BARRIER V
    VSQRT.f32 [0x2ff00], [0x2ff00]
    BARRIER V
    VADDS.f32 [0x2ff00], [0x2ff00], 1.0
    HALT

; EXPECT ub:0x2ff00:f32:9 = 1 4 1 5 1.5 2.5 11 1 1
; EXPECT ub:0x2fffc:f32:1 = 1
