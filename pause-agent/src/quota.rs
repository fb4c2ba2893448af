//! Finding a CFS CPU quota on the agent's cgroup or any cgroup above it.
//!
//! Under a quota the kernel hands out CPU time per period and refills it at the next one. A service stopped for part
//! of a period finds its quota unspent when it runs again and uses it at once, so a pause costs it little or nothing:
//! the slowdown the model relies on would not happen. The agent therefore refuses to start under a quota.
//!
//! Both cgroup versions are read: v2's `cpu.max` (`max <period>` is no quota) and v1's `cpu.cfs_quota_us` (`-1` is no
//! quota), from the process's own cgroup up to the root of the mounted hierarchy, since a parent's quota throttles its
//! children too. Every path is read under a root folder, `/` outside tests.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A quota found: the file that sets it and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuQuota {
    pub file: PathBuf,
    pub value: String,
}

/// The first quota found from the process's cgroups upwards, if any.
pub fn find(root: &Path) -> io::Result<Option<CpuQuota>> {
    let cgroups = read(root, "proc/self/cgroup")?;
    let mounts = read(root, "proc/self/mountinfo")?;
    let mounts: Vec<Mount> = mounts.lines().filter_map(Mount::parse).collect();
    for membership in cgroups.lines().filter_map(Membership::parse) {
        let Some(mount) = mounts.iter().find(|mount| membership.is_in(mount)) else { continue };
        let quota_file = if membership.is_v2() { "cpu.max" } else { "cpu.cfs_quota_us" };
        let top = root.join(relative(&mount.point));
        let mut dir = top.join(relative(mount.within(&membership.path)));
        loop {
            let file = dir.join(quota_file);
            if let Ok(value) = fs::read_to_string(&file) {
                let value = value.trim().to_string();
                if sets_quota(quota_file, &value) {
                    return Ok(Some(CpuQuota { file, value }));
                }
            }
            if dir == top || !dir.pop() {
                break;
            }
        }
    }
    Ok(None)
}

fn read(root: &Path, file: &str) -> io::Result<String> {
    let path = root.join(file);
    fs::read_to_string(&path).map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", path.display())))
}

fn relative(path: &str) -> &str {
    path.trim_start_matches('/')
}

/// Whether a quota file's content limits the CPU.
pub fn sets_quota(file: &str, value: &str) -> bool {
    if file == "cpu.max" {
        // "<quota> <period>" or "max <period>".
        value.split_ascii_whitespace().next().is_some_and(|quota| quota != "max")
    } else {
        value.parse::<i64>().is_ok_and(|quota| quota > 0)
    }
}

/// A line of /proc/self/cgroup: `id:controllers:path`; v2's line is `0::path`.
#[derive(Debug, PartialEq, Eq)]
struct Membership {
    controllers: Vec<String>,
    path: String,
}

impl Membership {
    fn parse(line: &str) -> Option<Membership> {
        let mut fields = line.splitn(3, ':');
        let _id = fields.next()?;
        let controllers = fields.next()?;
        let path = fields.next()?.to_string();
        let controllers = controllers.split(',').filter(|c| !c.is_empty()).map(str::to_string).collect();
        Some(Membership { controllers, path })
    }

    fn is_v2(&self) -> bool {
        self.controllers.is_empty()
    }

    fn is_in(&self, mount: &Mount) -> bool {
        if self.is_v2() {
            mount.fs_type == "cgroup2"
        } else {
            mount.fs_type == "cgroup"
                && self.controllers.iter().any(|c| c == "cpu")
                && mount.super_options.split(',').any(|option| option == "cpu")
        }
    }
}

/// The fields of a /proc/self/mountinfo line the search needs.
#[derive(Debug, PartialEq, Eq)]
struct Mount {
    /// The folder of the hierarchy that is mounted (`/` unless a container sees only its own part).
    root: String,
    point: String,
    fs_type: String,
    super_options: String,
}

impl Mount {
    fn parse(line: &str) -> Option<Mount> {
        // id parent major:minor root mount-point options [optional fields...] - type source super-options
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split(' ').collect();
        let mut after = after.split(' ');
        let fs_type = after.next()?.to_string();
        let _source = after.next()?;
        let super_options = after.next().unwrap_or("").to_string();
        Some(Mount { root: unescape(fields.get(3)?), point: unescape(fields.get(4)?), fs_type, super_options })
    }

    /// The part of a cgroup path below this mount's root: the path as seen from the mount point.
    fn within<'a>(&self, path: &'a str) -> &'a str {
        if self.root == "/" {
            return path;
        }
        match path.strip_prefix(self.root.as_str()) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
            // The cgroup is outside what is mounted (another namespace's view): check what is visible.
            _ => "",
        }
    }
}

/// Undoes mountinfo's octal escapes (`\040` for a space).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() && bytes[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b)) {
            out.push((bytes[i + 1] - b'0') * 64 + (bytes[i + 2] - b'0') * 8 + (bytes[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder laid out as `/` would be: proc/self/{cgroup,mountinfo} and the cgroup files, removed on drop.
    struct FakeRoot(PathBuf);

    impl FakeRoot {
        fn new(name: &str, cgroup: &str, mountinfo: &str) -> FakeRoot {
            let dir = std::env::temp_dir().join(format!("pause-agent-quota-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(dir.join("proc/self")).unwrap();
            fs::write(dir.join("proc/self/cgroup"), cgroup).unwrap();
            fs::write(dir.join("proc/self/mountinfo"), mountinfo).unwrap();
            FakeRoot(dir)
        }

        fn file(&self, path: &str, content: &str) -> PathBuf {
            let file = self.0.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, content).unwrap();
            file
        }
    }

    impl Drop for FakeRoot {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const V2_MOUNT: &str = "41 31 0:38 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
    const V1_MOUNTS: &str = "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n\
                             32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";

    #[test]
    fn finds_a_v2_quota_on_the_own_cgroup_or_a_parent() {
        let root = FakeRoot::new("v2", "0::/kubepods/pod1/app\n", V2_MOUNT);
        root.file("sys/fs/cgroup/kubepods/pod1/app/cpu.max", "max 100000\n");
        assert_eq!(find(&root.0).unwrap(), None);
        let parent = root.file("sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000\n");
        assert_eq!(find(&root.0).unwrap(), Some(CpuQuota { file: parent, value: "50000 100000".into() }));
        let own = root.file("sys/fs/cgroup/kubepods/pod1/app/cpu.max", "20000 100000\n");
        assert_eq!(find(&root.0).unwrap().map(|quota| quota.file), Some(own));
    }

    #[test]
    fn finds_a_v1_quota_in_the_cpu_hierarchy_only() {
        let root = FakeRoot::new("v1", "9:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n", V1_MOUNTS);
        root.file("sys/fs/cgroup/memory/docker/abc/cpu.cfs_quota_us", "100000\n");
        root.file("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
        assert_eq!(find(&root.0).unwrap(), None);
        let quota = root.file("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "150000\n");
        assert_eq!(find(&root.0).unwrap(), Some(CpuQuota { file: quota, value: "150000".into() }));
    }

    #[test]
    fn a_container_sees_its_cgroup_at_the_mount_point() {
        // Without a cgroup namespace the path is the host's, and only the container's part is mounted.
        let root = FakeRoot::new(
            "container",
            "0::/docker/abc\n",
            "41 31 0:38 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        );
        let quota = root.file("sys/fs/cgroup/cpu.max", "100000 100000\n");
        assert_eq!(find(&root.0).unwrap().map(|quota| quota.file), Some(quota));
    }

    #[test]
    fn unreadable_proc_files_are_an_error_naming_the_file() {
        let missing = std::env::temp_dir().join("pause-agent-quota-missing-root");
        let error = find(&missing).unwrap_err();
        assert!(error.to_string().contains("proc/self/cgroup"), "{error}");
    }

    #[test]
    fn reads_quota_files_of_both_versions() {
        assert!(sets_quota("cpu.max", "50000 100000"));
        assert!(!sets_quota("cpu.max", "max 100000"));
        assert!(!sets_quota("cpu.max", ""));
        assert!(sets_quota("cpu.cfs_quota_us", "200000"));
        assert!(!sets_quota("cpu.cfs_quota_us", "-1"));
        assert!(!sets_quota("cpu.cfs_quota_us", "garbage"));
    }

    #[test]
    fn parses_cgroup_memberships() {
        assert_eq!(
            Membership::parse("0::/kubepods/pod1"),
            Some(Membership { controllers: vec![], path: "/kubepods/pod1".into() })
        );
        let v1 = Membership::parse("4:cpu,cpuacct:/docker/abc").unwrap();
        assert_eq!(v1.controllers, vec!["cpu".to_string(), "cpuacct".to_string()]);
        assert!(!v1.is_v2());
        assert_eq!(Membership::parse("garbage"), None);
    }

    #[test]
    fn parses_mountinfo_lines_with_optional_fields_and_escapes() {
        let v1 =
            Mount::parse("32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct")
                .unwrap();
        assert_eq!(v1.point, "/sys/fs/cgroup/cpu,cpuacct");
        assert_eq!((v1.fs_type.as_str(), v1.super_options.as_str()), ("cgroup", "rw,cpu,cpuacct"));
        let v2 = Mount::parse("41 31 0:38 /docker/abc /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw").unwrap();
        assert_eq!((v2.root.as_str(), v2.point.as_str()), ("/docker/abc", "/sys/fs/cgroup x"));
        assert_eq!(v2.within("/docker/abc/inner"), "/inner");
        assert_eq!(v2.within("/docker/abc"), "");
        assert_eq!(v2.within("/docker/abcdef"), "");
    }

    #[test]
    fn a_v1_membership_matches_only_the_hierarchy_with_the_cpu_controller() {
        let cpu = Membership::parse("4:cpu,cpuacct:/").unwrap();
        let memory = Mount::parse("35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory").unwrap();
        let cpuacct_only = Mount::parse("33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct").unwrap();
        let cpu_mount = Mount::parse("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct").unwrap();
        assert!(!cpu.is_in(&memory));
        assert!(!cpu.is_in(&cpuacct_only));
        assert!(cpu.is_in(&cpu_mount));
    }
}
