//! What the worker waits on: the front end's commands and the events of
//! its watcher and of a shared store's listener, two channels it selects
//! over (no thread forwards one into the other). A long step (a reconcile,
//! the pairing after it, a regather) asks [`Inputs::go_on`] between its
//! batches: that takes what is waiting aside for the next pass, and says
//! stop once the front end has asked to quit.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, TryRecvError};

use super::batch::Input;
use super::protocol::Command;

/// The worker's channels, and the inputs a long step took off them.
pub(super) struct Inputs {
    commands: Receiver<Command>,
    /// The watcher's and the listener's events; [`crossbeam_channel::never`]
    /// once neither feeds it (no watcher, a store that does not listen).
    events: Receiver<Input>,
    /// Taken off the channels by [`Inputs::go_on`]: they come first.
    stash: VecDeque<Input>,
    /// A `Quit` was taken aside (or the front end is gone).
    quit: bool,
}

impl Inputs {
    pub(super) fn new(commands: Receiver<Command>, events: Receiver<Input>) -> Self {
        Self {
            commands,
            events,
            stash: VecDeque::new(),
            quit: false,
        }
    }

    /// The oldest input taken aside.
    pub(super) fn stashed(&mut self) -> Option<Input> {
        self.stash.pop_front()
    }

    /// Whether no input is taken aside.
    pub(super) fn nothing_stashed(&self) -> bool {
        self.stash.is_empty()
    }

    /// Take one waiting input aside, if any.
    pub(super) fn stash_one(&mut self) {
        if let Ok(input) = self.try_recv() {
            self.stash.push_back(input);
        }
    }

    /// A waiting input (commands first, then events), without waiting;
    /// `Disconnected` once the front end is gone (its handle sends `Quit`
    /// before that).
    pub(super) fn try_recv(&mut self) -> Result<Input, TryRecvError> {
        match self.commands.try_recv() {
            Ok(command) => return Ok(Input::Command(command)),
            Err(TryRecvError::Disconnected) => return Err(TryRecvError::Disconnected),
            Err(TryRecvError::Empty) => {}
        }
        match self.events.try_recv() {
            Err(TryRecvError::Disconnected) => {
                self.events = crossbeam_channel::never();
                Err(TryRecvError::Empty)
            }
            received => received,
        }
    }

    /// The next input of either channel, waiting at most `timeout`;
    /// `Disconnected` once the front end is gone.
    pub(super) fn recv_timeout(&mut self, timeout: Duration) -> Result<Input, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        loop {
            crossbeam_channel::select! {
                recv(self.commands) -> command => {
                    return command
                        .map(Input::Command)
                        .map_err(|_| RecvTimeoutError::Disconnected);
                }
                recv(self.events) -> event => if let Ok(event) = event {
                    return Ok(event);
                },
                default(deadline.saturating_duration_since(Instant::now())) => {
                    return Err(RecvTimeoutError::Timeout);
                }
            }
            // Nothing feeds the events any more: commands alone from now
            // on (a closed channel would be ready at every select).
            self.events = crossbeam_channel::never();
        }
    }

    /// Between two batches of a long step: take everything waiting aside
    /// for the next pass; whether to go on (no `Quit` taken, the front end
    /// still there).
    pub(super) fn go_on(&mut self) -> bool {
        loop {
            match self.try_recv() {
                Ok(input) => {
                    self.quit |= matches!(input, Input::Command(Command::Quit));
                    self.stash.push_back(input);
                }
                Err(TryRecvError::Disconnected) => {
                    self.quit = true;
                    break;
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        !self.quit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::WatchEvent;

    /// Without a watcher or a listener the events channel closes at once;
    /// commands still arrive, waiting times out as asked, and the worker
    /// learns the front end is gone when its commands close.
    #[test]
    fn commands_arrive_after_the_events_channel_closed() {
        let (commands, command_rx) = crossbeam_channel::unbounded();
        let (events, event_rx) = crossbeam_channel::unbounded::<Input>();
        let mut inputs = Inputs::new(command_rx, event_rx);
        events.send(Input::Watch(WatchEvent::Rescan)).expect("open");
        drop(events);
        let got = inputs.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(Input::Watch(WatchEvent::Rescan))));
        let waited = inputs.recv_timeout(Duration::from_millis(1));
        assert!(matches!(waited, Err(RecvTimeoutError::Timeout)));
        commands.send(Command::Rescan).expect("open");
        let got = inputs.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(Input::Command(Command::Rescan))));
        drop(commands);
        let gone = inputs.recv_timeout(Duration::from_secs(5));
        assert!(matches!(gone, Err(RecvTimeoutError::Disconnected)));
    }

    /// `go_on` takes what waits aside, in order, and says stop once a
    /// `Quit` is among it — and keeps saying so.
    #[test]
    fn go_on_stashes_what_waits_and_stops_at_quit() {
        let (commands, command_rx) = crossbeam_channel::unbounded();
        let (events, event_rx) = crossbeam_channel::unbounded::<Input>();
        let mut inputs = Inputs::new(command_rx, event_rx);
        events.send(Input::Watch(WatchEvent::Rescan)).expect("open");
        commands.send(Command::Rescan).expect("open");
        assert!(inputs.go_on());
        commands.send(Command::Quit).expect("open");
        assert!(!inputs.go_on());
        assert!(!inputs.go_on(), "a stop holds");
        let stashed: Vec<Input> = std::iter::from_fn(|| inputs.stashed()).collect();
        assert!(matches!(
            stashed.as_slice(),
            [
                Input::Command(Command::Rescan),
                Input::Watch(WatchEvent::Rescan),
                Input::Command(Command::Quit)
            ]
        ));
    }
}
