/**
 * What the sandbox allows one command, whatever enforces it: which paths it
 * may write, which stay read-only or hidden, whether it has a network. Made
 * from the command's analysis (see `sandboxPolicy`), turned into the
 * arguments of a sandbox program by an adapter (see `bubblewrapArguments`).
 */
export type SandboxPolicy = {
  /**
   * `read-only`: a line the analysis proves read-only; `write`: any other
   * line (allowed by a rule, a mode or a person's yes); `bypass`: bypass
   * mode, where only the masks and protected paths hold.
   */
  level: 'read-only' | 'write' | 'bypass';
  /** Where the command starts (real path). */
  cwd: string;
  /** Real paths bound writable, over a read-only file system. */
  writable: string[];
  /** Real paths bound read-only again below `/tmp`, which is otherwise private. */
  visible: string[];
  /** Existing real paths inside writable ones that stay read-only (`.git/hooks`, `.bashrc`). */
  protect: string[];
  /**
   * Directories bound read-only whose entries are in `writable`: nothing
   * new can be made at their top, so a protected path that does not exist
   * yet (`~/.bash_profile`) stays uncreatable. The home in bypass mode.
   */
  sealed: string[];
  /** Existing secrets hidden: a file reads as empty, a directory as an empty read-only one. */
  masks: { path: string; directory: boolean }[];
  /** A private, empty `/tmp` (and `TMPDIR`); `false` only in bypass mode. */
  privateTmp: boolean;
  /** The command's `TMPDIR` when it is set, made private (an empty tmpfs) like `/tmp`. */
  tmpdir: string | undefined;
  /** Whether the command shares the host's network; otherwise its own namespace with loopback only. */
  network: boolean;
};

/** Which sandbox program a machine has: only bubblewrap (Linux) is built today. */
export type SandboxKind = 'bubblewrap' | 'none';

/**
 * How much the Bash tool insists on a sandbox: `auto` uses one when the
 * machine has it and otherwise runs commands bare, saying so once; `required`
 * refuses to run commands without one; `off` never uses one.
 */
export type SandboxSetting = 'auto' | 'required' | 'off';

/** The sandbox options of the Bash tool. */
export type SandboxOptions = {
  /** Default `auto`. */
  mode?: SandboxSetting;
  /**
   * Network for approved commands that are not network commands by name:
   * with hosts listed, such commands get the network. The hosts are not
   * filtered one by one (see ADR tools-0007); read-only lines never get a network.
   */
  network?: { allow?: string[] };
  /** The bubblewrap program; default `bwrap` on the `PATH`. */
  bubblewrap?: string;
  /**
   * Sandbox auto-allow (default false): a line the check would ask about
   * runs without asking when the sandbox holds all it can do (see
   * `autoAllowed`). Only with a sandbox here and no `network.allow`.
   */
  autoAllow?: boolean;
};
