//! A chat site of the test tree written in Python (`tests/<name>/site.py`), served on a free
//! port of this machine with its files in a folder of its own: the outside attacks' sites
//! (Parlor, Murmur and the others), started one way and ended when dropped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a site may take to start.
const START: Duration = Duration::from_secs(20);

/// A site serving on this machine until dropped.
pub struct PythonSite {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

impl PythonSite {
    /// Starts `tests/<folder>/site.py` with its folder (holding `files`, each a name and its
    /// text, written first) and a free port; returns once it wrote `ready` there. Its errors
    /// go to `server.log` in that folder.
    pub fn start(folder: &str, files: &[(&str, String)]) -> PythonSite {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(folder)
            .join("site.py");
        let child = Command::new("python3")
            .arg(script)
            .arg(dir.path())
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(dir.path().join("server.log")).unwrap())
            .spawn()
            .unwrap();
        let site = PythonSite { child, port, dir };
        let started = Instant::now();
        while !site.file("ready").exists() {
            assert!(
                started.elapsed() < START,
                "the site of tests/{folder} did not start: {}",
                fs::read_to_string(site.file("server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        site
    }

    /// The site's address.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// A file in the site's folder.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for PythonSite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
