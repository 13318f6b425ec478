//! Fuzz target: the Quake 3 log reader on arbitrary bytes, feeding every event into the
//! frag ranking as `podium frags` does. Nothing may panic; every byte is accounted for;
//! strengths stay finite and non-negative.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podium::frags::{FragConfig, FragEvent, FragRanking};
use podium_io::quake::{Killer, QuakeEvent, QuakeLog};

fuzz_target!(|data: &[u8]| {
    let mut log = QuakeLog::new(data);
    let mut ranking = FragRanking::new(FragConfig::default());
    let mut ids = Vec::new();
    while let Some(event) = log.next() {
        let event = event.expect("reading a byte slice cannot fail");
        if let QuakeEvent::Kill { killer, victim, .. } = event {
            let parser = log.parser();
            ids.push(parser.player_name(victim).len());
            let v = ranking.player(parser.player_name(victim));
            let update = match killer {
                Killer::World => ranking.apply(FragEvent::WorldKill { victim: v }),
                Killer::Player(k) => {
                    let k = ranking.player(parser.player_name(k));
                    ranking.apply(FragEvent::Frag { killer: k, victim: v })
                }
            };
            for c in update.changes() {
                assert!(c.after.is_finite() && c.after >= 0.0);
            }
        } else if let QuakeEvent::GameEnd { .. } = event {
            let _ = ranking.end_game();
        }
    }
    let s = log.parser().summary();
    assert_eq!(s.bytes, data.len() as u64);
    assert!(s.kills as usize == ids.len());
});
