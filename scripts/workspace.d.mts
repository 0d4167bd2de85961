// Types of scripts/workspace.mjs, for the TypeScript tests that use it.

/** One workspace package: its name, folder (relative), absolute directory and manifest. */
export type WorkspacePackage = {
  name: string;
  folder: string;
  directory: string;
  manifest: {
    name: string;
    version: string;
    private?: boolean;
    bin?: Record<string, string>;
    dependencies?: Record<string, string>;
    exports?: Record<string, Record<string, string>>;
    [field: string]: unknown;
  };
};

/** The repository's root folder. */
export const root: string;

/** Every workspace package with a package.json, dependencies first. */
export function workspacePackages(): WorkspacePackage[];

/** The packages that are published: those not marked `private`. */
export function publishedPackages(): WorkspacePackage[];
