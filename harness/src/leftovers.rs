//! What a run puts on the machine while it runs: the process groups of the
//! gateways it launched and its temporary folders. Each owner removes its
//! own when dropped; a run stopped by a signal removes whatever is still
//! listed here in one go, as no owner may be dropped then.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

/// Process groups of launched gateways, by their leader's id.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Temporary folders of the run.
static FOLDERS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn lock<T>(set: &Mutex<T>) -> MutexGuard<'_, T> {
    set.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A gateway's process group, led by `leader`, is alive.
pub fn group_launched(leader: i32) {
    lock(&GROUPS).insert(leader);
}

/// Kills the process group led by `leader`: the gateway and all it started
/// (the children of `sh -c` or `npx` wrappers), even once the leader itself
/// has exited.
pub fn kill_group(leader: i32) {
    #[cfg(unix)]
    // SAFETY: killpg only sends a signal, to a group this run launched.
    unsafe {
        libc::killpg(leader, libc::SIGKILL);
    }
    lock(&GROUPS).remove(&leader);
}

/// A temporary folder of the run now exists at `path`.
pub fn folder_created(path: &Path) {
    lock(&FOLDERS).insert(path.to_path_buf());
}

/// Removes the temporary folder at `path`.
pub fn remove_folder(path: &Path) {
    let _ = std::fs::remove_dir_all(path);
    lock(&FOLDERS).remove(path);
}

/// Kills every process group and removes every folder still listed.
pub fn remove_all() {
    let groups: Vec<i32> = lock(&GROUPS).iter().copied().collect();
    for leader in groups {
        kill_group(leader);
    }
    let folders: Vec<PathBuf> = lock(&FOLDERS).iter().cloned().collect();
    for folder in folders {
        remove_folder(&folder);
    }
}
