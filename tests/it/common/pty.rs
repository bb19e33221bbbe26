//! A program on a pseudo-terminal (`script`, from util-linux/bsdutils), typed at as a person
//! would: each line once the screen shows what it answers, never after a fixed wait.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the screen may take to show what a test waits for (a turn against headless
/// Chromium on a loaded machine included).
const SHOW_TIMEOUT: Duration = Duration::from_secs(90);

pub struct Pty {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Everything the terminal showed so far.
    screen: Arc<Mutex<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
    /// Where the next wait starts looking (past what was waited for before).
    seen: usize,
}

impl Pty {
    /// Starts `command` (a shell command line) on a pseudo-terminal, with `env` added.
    pub fn start(command: &str, env: &[(&str, &std::path::Path)]) -> Pty {
        let mut script = Command::new("script");
        script
            .args(["-qec", command, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in env {
            script.env(key, value);
        }
        let mut child = script
            .spawn()
            .expect("`script` (bsdutils) runs the binary on a pseudo-terminal");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let shown = Arc::clone(&screen);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shown.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            child,
            stdin,
            screen,
            reader: Some(reader),
            seen: 0,
        }
    }

    /// The screen so far, with the terminal's `\r\n` as `\n`.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).replace("\r\n", "\n")
    }

    /// Waits until the screen shows `text` after whatever was waited for before.
    pub fn wait_for(&mut self, text: &str) -> &mut Pty {
        let started = Instant::now();
        loop {
            let screen = self.text();
            let from = self.seen.min(screen.len());
            let from = (0..=from)
                .rev()
                .find(|&i| screen.is_char_boundary(i))
                .unwrap_or(0);
            if let Some(at) = screen[from..].find(text) {
                self.seen = from + at + text.len();
                return self;
            }
            assert!(
                started.elapsed() < SHOW_TIMEOUT,
                "the terminal never showed {text:?}; it showed:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Types `line` and the Enter key (`end`: `"\n"`, or `"\r"` for a line editor in raw mode).
    pub fn type_line(&mut self, line: &str, end: &str) -> &mut Pty {
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "{line}{end}").unwrap();
        stdin.flush().unwrap();
        self
    }

    /// Closes the terminal, as when its window is closed: the program's session gets SIGHUP.
    pub fn hang_up(mut self) {
        drop(self.stdin.take());
        // `script` holds the terminal's other end; when it dies the terminal hangs up.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes the keyboard, waits for the program to end and returns everything it showed.
    pub fn finish(mut self) -> String {
        drop(self.stdin.take());
        self.child.wait().unwrap();
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        self.text()
    }
}
