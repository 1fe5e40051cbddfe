/*
 * PushSeal key lifecycle: the provider's key directory, three devices (two honest members' devices and a
 * removed member's device) and a delivery channel controlled by the attacker, model-checked with Spin.
 *
 * The model follows Docs/SPEC.md and the per-device design of issue 25 (bundle format 2): every rule below
 * names its section. Keys are symbols: a device key K_d is the triple (epoch, device, registration); with
 * -DSHARED_KEY (0.3's shared K) a key is the epoch alone. Cryptography is ideal: a bundle opens only on the
 * registration it was sealed to, a notification only under the key it was sealed with, and only the provider
 * can seal bundles (no KCI; Docs/THREAT-MODEL.md §9 says what is outside the model).
 *
 * Run through Models/check.sh (every configuration, every mutant). The properties are assertions, each a
 * `property(...)` below, named P1a ... P6 and tied to a THREAT-MODEL.md claim (§9). A violated property prints
 * "VIOLATION <name>" when the trail is replayed (spin -t), which is how check.sh tells them apart.
 *
 * Modes (-D):
 *   ATTACKER_HOLDS_K       the removed member holds the root K of every epoch it was a member of, so it can
 *                          derive every device's key of those epochs (what a 0.3 member held, or a leaked K):
 *                          the per-device property P1b is then void and only the retire-by rules stop it.
 * Mutants (-D), each removing or weakening one rule; check.sh requires a counterexample for each:
 *   NO_HIGH_WATER NO_TOMBSTONE NO_RETIRE_ON_INSTALL NO_RETIRE_EARLIER NO_STEP_CAP SHARED_KEY
 *   INSTALL_TIME_RETIRE_BY HIGH_WATER_SINCE (the installed_retired rule before finding F1 was closed: S_H alone)
 * Bounds (-D, defaults below): E epochs, MAXT clock ticks, LIFE bundle lifetime, SKEW maxFutureSkew, CAP step.
 */

#ifndef E
#define E 3          /* epochs 1..E: two rotations (a removal and a plain one) */
#endif
#ifndef MAXT
#define MAXT 5       /* the clock: 0..MAXT */
#endif
#ifndef LIFE
#define LIFE 3       /* bundle lifetime in ticks: expires = seal time + LIFE (design: seal time + 30 days) */
#endif
#ifndef SKEW
#define SKEW 1       /* maxFutureSkew (SPEC §10.2), 0 or 1 tick */
#endif
#ifndef CAP
#define CAP 1        /* the step cap (design step 9: 65536), scaled down so that it can bite */
#endif

#define INF 255      /* retireBy / notAfter "no limit" (0xffffffffffffffff) */
#define ND 3         /* devices 0 and 1: honest members' devices; 2: the removed member's device */
#define RM 2
#ifndef NG
#define NG 2         /* registrations per device: the first and the one after a logout wipe */
#endif
#define NE (E + 1)
#define IX(e, d) ((e) * ND + (d))
#define TB (MAXT + 1)
#define BX(e, d, g, late) (((IX(e, d)) * NG + (g)) * 2 + (late))
#define NX(e, d, g) ((IX(e, d)) * NG + (g))
#define NONE 255
#define MIN(a, b) ((a) < (b) -> (a) : (b))

#define property(name, cond) if :: !(cond) -> printf(name); assert(false) :: else -> skip fi

/* ---- the provider's key directory (SPEC §3.3, §3.5; design "Provider sealing") ---- */
byte clk;                 /* the one clock ("now"), a bounded counter (Spin reserves the name now) */
byte cur = 1;             /* current epoch */
byte since[NE];           /* created time of each epoch: when it became current */
byte ret[NE];             /* retire time (not-after) of each epoch at the provider, INF while current */
bool ppurged[NE];         /* purged at the provider: no bundle of it is sealed any more */
byte rLast = E;           /* the removed member's device is a member of epochs 1..rLast */
byte preg[ND];            /* the registration (generation) the directory seals to, per device */

/* ---- the channel: everything it has ever carried (the attacker may deliver any of it, any number of times,
 *      in any order, at any later time, or never) ---- */
/* Only the latest of equal bundles matters: two bundles of one (epoch, registration, current-or-retired) differ
 * only in their expiry, the later one is usable whenever the earlier is, and installing either stores the same.
 * Likewise only the latest ts of the provider's notifications under one key matters for P6 (a smaller ts opens
 * whenever a larger one does, and its in-band bundle expires earlier). NONE = never sealed. */
byte sentB[NE * ND * NG * 2];   /* bundles: latest seal time, index BX(e, d, registration, sealed after retirement) */
byte sentN[NE * ND * NG];       /* the provider's notifications: latest ts, index NX(e, d, registration) */

/* ---- devices: the conversation record and the key store (design step 9) ---- */
byte gen[ND];             /* the device's current registration (the logout wipe replaces the device key) */
byte lag[ND];             /* the device clock runs behind the provider's by lag ≤ SKEW */
bool hasH[ND];
byte H[ND];               /* high-water epoch */
byte SH[ND];              /* its since */
byte P[ND];               /* purgedThrough: the tombstone */
bool held[NE * ND];       /* the store holds this epoch's key (of the current registration) */
byte na[NE * ND];         /* its stored notAfter (retire-by), INF = none */
byte st[NE * ND];         /* its recorded start T = min(since, install time), the key's created time (SPEC §16.5
                             9e/9f); 0 when not held */
/* The removed member's device has no store in the model: the member controls it, so it holds the key of every
 * bundle ever sealed to it (sentB of device RM), whatever a device's rules would have kept. */

/* ---- ghost state, for the properties only (reset with the registration) ---- */
byte gMaxH[ND];           /* the newest epoch this registration ever installed as current */
byte gP[ND];              /* the newest epoch this registration ever purged */
byte gBound[NE * ND];     /* the earliest retirement time of the epoch the provider told this registration:
                             min(since of every later epoch it installed as current, the retireBy of every
                             bundle of the epoch sealed after retirement it installed) */

hidden byte nd, rb, ex, outcome, k, lowSince, sd, se, cd, ce, cg, cts, live;   /* scratch: not part of the state */
hidden byte opens, match;

#define O_OK 0
#define O_AUTH 1         /* bundle_authentication_failed: sealed to another registration (§16.5 step 5) */
#define O_EXPIRED 2
#define O_PURGED 3
#define O_RANGE 4
#define O_ALREADY 5
#define O_INSTALLED 6
#define O_RETIRED 7      /* (the trail prints outcomes as these numbers) */

/* Design "Provider sealing" and SPEC §16.7: at every instant the provider seals every bundle it may seal: of
 * every unpurged epoch (current: retireBy none; retired: its not-after; a retired epoch CAN be delivered) for
 * every member device's registered key, expires = now + lifetime; and a notification under the current epoch's
 * key of every member device (ts = now) carrying that key's bundle in band. The removed member's device gets
 * nothing after its revocation. Sealing everything is the most the channel can ever carry: the attacker drops
 * what it does not want to deliver, so this loses no behaviour, and it keeps sealing out of the state space. */
inline sealAll() {
    for (k : 0 .. ND * E - 1) {
        sd = k % ND;
        se = k / ND + 1;
        if
        :: se <= cur && !ppurged[se] && (sd != RM || rLast == E) ->
            sentB[BX(se, sd, preg[sd], ret[se] != INF)] = clk
        :: else -> skip
        fi;
        if
        :: se == cur && (sd != RM || rLast >= cur) ->
            sentN[NX(se, sd, preg[sd])] = clk
        :: else -> skip
        fi
    }
}

inline deviceNow(d) {
    if
    :: clk >= lag[d] -> nd = clk - lag[d]
    :: else -> nd = 0
    fi
}

/* Design step 9 (SPEC §16.5 for format 2): the device installs a bundle of epoch e sealed to registration g of
 * device d at time t, sealed after the epoch's retirement when late (then retireBy = the epoch's not-after). */
inline install(d, e, g, late, t) {
    deviceNow(d);
    rb = (late -> ret[e] : INF);
    ex = t + LIFE;
    outcome = O_OK;
    if  /* step 5: HPKE to another device key (another device, or this device before its wipe) fails */
    :: g != gen[d] -> outcome = O_AUTH
    :: else -> skip
    fi;
    if  /* step 8: bundle_expired when now > expires */
    :: outcome == O_OK && nd > ex -> outcome = O_EXPIRED
    :: else -> skip
    fi;
#ifndef NO_TOMBSTONE
    if  /* step 9: epoch_purged when epoch ≤ purgedThrough */
    :: outcome == O_OK && e <= P[d] -> outcome = O_PURGED
    :: else -> skip
    fi;
#endif
#ifndef NO_STEP_CAP
    if  /* step 9: epoch_out_of_range when H exists and epoch > H + cap */
    :: outcome == O_OK && hasH[d] && e > H[d] + CAP -> outcome = O_RANGE
    :: else -> skip
    fi;
#endif
    /* P5 (THREAT-MODEL §9 C5): a genuine bundle for this registration, not expired, not purged and within the
     * step is installed; out of order it installs as retired (every bundle in the channel is genuine). */
    property("VIOLATION P5 genuine bundle installs\n",
        !(g == gen[d] && nd <= ex && e > gP[d] && (!hasH[d] || e <= H[d] + CAP)) || outcome == O_OK);
    if
    :: outcome == O_OK && held[IX(e, d)] ->
        /* already_installed: may tighten the stored retire-by, never loosen it */
        outcome = O_ALREADY;
        na[IX(e, d)] = MIN(na[IX(e, d)], rb)
#ifdef NO_HIGH_WATER
    :: outcome == O_OK && !held[IX(e, d)] ->
#else
    /* epoch > H (or no H): installed. (epoch = H with the key absent happens only after a purge, which the
     * tombstone refuses; without it, -DNO_TOMBSTONE, it is treated as this branch.) */
    :: outcome == O_OK && !held[IX(e, d)] && (!hasH[d] || e >= H[d]) ->
#endif
        outcome = O_INSTALLED;
        /* P4 (C4): the newest epoch never moves backwards, and by at most the cap per bundle */
        property("VIOLATION P4 high-water monotone\n", !hasH[d] || e >= H[d]);
        property("VIOLATION P4b high-water step\n", !hasH[d] || e <= H[d] + CAP);
        held[IX(e, d)] = true;
        na[IX(e, d)] = rb;
        st[IX(e, d)] = MIN(since[e], nd);
        hasH[d] = true;
        H[d] = e;
        SH[d] = since[e];
        /* every earlier epoch of the cid: notAfter := min(notAfter, since, now) (issue 24 item 4, issue 25 item 5) */
        for (k : 1 .. E) {
            if
            :: k < e && held[IX(k, d)] ->
#if defined(NO_RETIRE_EARLIER)
                skip
#elif defined(INSTALL_TIME_RETIRE_BY)
                na[IX(k, d)] = MIN(na[IX(k, d)], nd)       /* 0.3: the install time */
#else
                na[IX(k, d)] = MIN(na[IX(k, d)], MIN(since[e], nd))
#endif
            :: else -> skip
            fi;
            if
            :: k < e -> gBound[IX(k, d)] = MIN(gBound[IX(k, d)], since[e])
            :: else -> skip
            fi
        };
        if
        :: e > gMaxH[d] -> gMaxH[d] = e
        :: else -> skip
        fi
    :: outcome == O_OK && !held[IX(e, d)] && hasH[d] && e < H[d] ->
        /* epoch < H: installed_retired with notAfter := min(retireBy, T_above, S_H, now), T_above the earliest
         * recorded start of the stored epochs above e (SPEC §16.5 9f, finding F1) */
        outcome = O_RETIRED;
        held[IX(e, d)] = true;
        st[IX(e, d)] = MIN(since[e], nd);
#if defined(NO_RETIRE_ON_INSTALL)
        na[IX(e, d)] = rb                                   /* the carried retireBy only (0.3) */
#elif defined(HIGH_WATER_SINCE)
        na[IX(e, d)] = MIN(rb, MIN(SH[d], nd))              /* before F1 was closed: S_H alone */
#else
        lowSince = SH[d];
        for (k : 1 .. E) {
            if
            :: k > e && held[IX(k, d)] && st[IX(k, d)] < lowSince -> lowSince = st[IX(k, d)]
            :: else -> skip
            fi
        };
        na[IX(e, d)] = MIN(rb, MIN(lowSince, nd))
#endif
    :: else -> skip
    fi;
    if
    :: (outcome == O_INSTALLED || outcome == O_RETIRED || outcome == O_ALREADY) && late ->
        gBound[IX(e, d)] = MIN(gBound[IX(e, d)], ret[e])
    :: else -> skip
    fi;
    /* P3 (C3): a purged (cid, epoch) never becomes installable again */
    property("VIOLATION P3 tombstone\n", !(outcome == O_INSTALLED || outcome == O_RETIRED) || e > gP[d]);
    /* P2b (C2): no key below the newest installed epoch is stored without a retire-by */
    for (k : 1 .. E) {
        property("VIOLATION P2b old key without retire-by\n", !(held[IX(k, d)] && k < gMaxH[d]) || na[IX(k, d)] != INF)
    }
}

/* SPEC §10.2 steps 5, 10 (the future bound) and 11 (retired_key): a notification under key (e, kd, kg) with
 * authenticated ts opens on device d iff the key is held and, if retired, ts ≤ retire-by + maxFutureSkew.
 * (maxAge is longer than the whole clock: no notification in the model goes stale.) */
inline accept(ad, ae, akd, akg, ats, agen) {
    deviceNow(ad);
#ifdef SHARED_KEY
    match = held[IX(ae, ad)];
#else
    match = held[IX(ae, ad)] && akd == ad && akg == gen[ad];
#endif
    opens = match && ats <= nd + SKEW && (na[IX(ae, ad)] == INF || ats <= na[IX(ae, ad)] + SKEW);
    if
    :: opens ->
        /* P1a (C1): only under a key the provider delivered to this device (this registration) */
        property("VIOLATION P1a key delivered to this device\n",
            sentB[BX(ae, ad, gen[ad], 0)] != NONE || sentB[BX(ae, ad, gen[ad], 1)] != NONE);
#ifndef ATTACKER_HOLDS_K
        /* P1b (C1): the removed member's forgery opens on no device but its own */
        if :: !(ad == RM || agen) -> printf("TRAIL device %d opens the removed member's notification under epoch %d with ts %d\n", ad, ae, ats) :: else -> skip fi;
        property("VIOLATION P1b forgery only to own device\n", ad == RM || agen);
#endif
        /* P2 (C2): never accepted with ats after the earliest retirement the provider told this device */
        if :: !(ad == RM || ats <= gBound[IX(ae, ad)] + SKEW) -> printf("TRAIL device %d opens epoch %d with ts %d; told retirement %d, stored retire-by %d\n", ad, ae, ats, gBound[IX(ae, ad)], na[IX(ae, ad)]) :: else -> skip fi;
        property("VIOLATION P2 sealed after retire-by\n", ad == RM || ats <= gBound[IX(ae, ad)] + SKEW)
    :: else -> skip
    fi
}

/* The deliveries that change nothing on the device — a notification of the provider stripped of its bundle, and
 * every notification the removed member can seal, with every ts — are checked in every state, after every
 * step, instead of being steps of their own (same behaviours, far fewer transitions). */
inline checkAll() {
    for (cd : 0 .. 1) {
        for (ce : 1 .. E) {
            for (cg : 0 .. NG - 1) {
                /* the provider's latest notification under (ce, cd, cg), its bundle stripped */
                cts = sentN[NX(ce, cd, cg)];
                if
                :: cts != NONE ->
                    live = cg == gen[cd] && ce > gP[cd] && held[IX(ce, cd)];
                    accept(cd, ce, cd, cg, cts, true);
                    property("VIOLATION P6 genuine notification opens\n", !live || opens)
                :: else -> skip
                fi;
                /* the removed member's forgeries, every ts */
                for (cts : 0 .. MAXT) {
#ifdef ATTACKER_HOLDS_K
                    /* the root K of every epoch it was a member of: every device's key of that epoch */
                    if
                    :: ce <= rLast && ce <= cur -> accept(cd, ce, cd, cg, cts, false)
                    :: else -> skip
                    fi
#else
                    /* its own device's keys only (per-device); with SHARED_KEY that is the conversation's K */
                    if
                    :: sentB[BX(ce, RM, cg, 0)] != NONE || sentB[BX(ce, RM, cg, 1)] != NONE ->
                        accept(cd, ce, RM, cg, cts, false)
                    :: else -> skip
                    fi
#endif
                }
            }
        }
    }
}

active proctype World() {
    byte e, d, g, late, t, ts;
    atomic {
        since[1] = 0;
        for (e : 0 .. E) { ret[e] = INF };
        for (k : 0 .. NE * ND - 1) { na[k] = INF; gBound[k] = INF };
        for (k : 0 .. NE * ND * NG * 2 - 1) { sentB[k] = NONE };
        for (k : 0 .. NE * ND * NG - 1) { sentN[k] = NONE };
        /* device 0's clock agrees with the provider's, device 1's lags it by SKEW (SPEC §10.2: the allowance covers it) */
        lag[0] = 0;
        lag[1] = SKEW;
        e = 0;
        d_step { sealAll(); skip };
        d_step { checkAll(); skip }
    };
    do
    :: atomic { clk < MAXT -> clk++; printf("TRAIL tick: now = %d\n", clk); d_step { sealAll(); checkAll(); skip } }
    /* SPEC §3.5, §3.3 (directory, issue 24): rotation retires every earlier epoch at the rotation time; the
     * removal of the removed member is a revocation of its device's registration plus a rotation. */
    :: atomic {
        cur < E ->
        ret[cur] = clk;
        cur++;
        since[cur] = clk;
        if
        :: skip
        :: rLast == E -> rLast = cur - 1; printf("TRAIL the removed member's device is revoked\n")
        fi;
        printf("TRAIL rotate at %d: epoch %d current\n", clk, cur);
        d_step { sealAll(); skip };
        d_step { checkAll(); skip }
    }
    /* SPEC §3.5: the provider purges a retired epoch: no bundle of it is sealed any more */
    :: atomic {
        if :: e = 1 :: e = 2 :: E >= 3 -> e = 3 fi;
        if :: e < cur && !ppurged[e] -> ppurged[e] = true; printf("TRAIL provider purges epoch %d\n", e) :: else -> skip fi;
        e = 0
    }
    /* the channel delivers any bundle it ever carried to the device it was sealed to (to another device it
     * fails step 5 and changes nothing), out of band or in band next to any envelope (step 8b then only
     * decides whether it is installed with that envelope; the channel can always deliver it on its own) */
    :: atomic {
        if :: e = 1 :: e = 2 :: E >= 3 -> e = 3 fi;
        if :: d = 0 :: d = 1 fi;
        if :: g = 0 :: g = 1 fi;
        if :: late = 0 :: late = 1 fi;
        t = sentB[BX(e, d, g, late)];
        if
        :: t != NONE ->
            d_step { install(d, e, g, late, t); skip };
            printf("TRAIL device %d (registration %d, clock %d) gets epoch %d's bundle sealed at %d (retired %d): outcome %d\n", d, g, nd, e, t, late, outcome);
            d_step { checkAll(); skip }
        :: else -> skip
        fi;
        e = 0; d = 0; g = 0; late = 0; t = 0
    }
    /* the channel delivers the provider's latest notification under a key with its in-band bundle
     * (SPEC §16.7: the bundle is processed first, then the envelope is opened whatever the outcome) */
    :: atomic {
        if :: e = 1 :: e = 2 :: E >= 3 -> e = 3 fi;
        if :: d = 0 :: d = 1 fi;
        if :: g = 0 :: g = 1 fi;
        ts = sentN[NX(e, d, g)];
        if
        :: ts != NONE ->
            d_step {
            deviceNow(d);
            /* P6's premise: delivered in time = to the registration it was sealed for, before the device
             * purged its epoch, with its in-band bundle unexpired and within the step (or the key held) */
            live = g == gen[d] && e > gP[d] &&
                   (held[IX(e, d)] || (nd <= ts + LIFE && (!hasH[d] || e <= H[d] + CAP)));
            install(d, e, g, 0, ts);
            accept(d, e, d, g, ts, true);
            printf("TRAIL device %d gets the notification of epoch %d, ts %d, with its bundle: bundle outcome %d, opens %d\n", d, e, ts, outcome, opens);
            /* P6 (C6): an honest provider's notification, delivered in time, opens */
            property("VIOLATION P6 genuine notification opens\n", !live || opens);
            checkAll();
            skip
            }
        :: else -> skip
        fi;
        e = 0; d = 0; g = 0; ts = 0
    }
    /* design "Purge on the device": purging a retired (cid, e) deletes its key and sets P := max(P, e) */
    :: atomic {
        if :: d = 0 :: d = 1 fi;
        if :: e = 1 :: e = 2 :: E >= 3 -> e = 3 fi;
        if
        :: held[IX(e, d)] && na[IX(e, d)] != INF ->
            held[IX(e, d)] = false;
            na[IX(e, d)] = INF;
            st[IX(e, d)] = 0;
            if :: e > P[d] -> P[d] = e :: else -> skip fi;
            if :: e > gP[d] -> gP[d] = e :: else -> skip fi;
            printf("TRAIL device %d purges epoch %d\n", d, e);
            d_step { checkAll(); skip }
        :: else -> skip
        fi;
        d = 0; e = 0
    }
    /* design "Logout wipe" (`store remove --all`): keys and conversation records deleted, the device key
     * replaced, and the new registration sent to the provider */
    :: atomic {
        if :: d = 0 :: d = 1 fi;
        if
        :: gen[d] < NG - 1 ->
            for (k : 1 .. E) { held[IX(k, d)] = false; na[IX(k, d)] = INF; st[IX(k, d)] = 0; gBound[IX(k, d)] = INF };
            hasH[d] = false; H[d] = 0; SH[d] = 0; P[d] = 0; gMaxH[d] = 0; gP[d] = 0;
            gen[d]++;
            preg[d] = gen[d];
            printf("TRAIL device %d: logout wipe, registration %d\n", d, gen[d]);
            d_step { sealAll(); skip };
            d_step { checkAll(); skip }
        :: else -> skip
        fi;
        d = 0
    }
    od
}
