"""`longground serve FOLDER...`: search a footage library in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from . import options as opt
from .channel_options import Channels, Subtitles, subtitles_on
from .checks import MAX_POLL_S, at_least, check_cache_root
from .main import app


@app.command("serve")
def serve(
    folders: Annotated[
        list[Path],
        typer.Argument(metavar="FOLDER", help="Folders of videos (searched recursively)."),
    ],
    host: Annotated[
        str, typer.Option(help="Address to listen on; loopback by default.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8770,
    rescan: Annotated[
        float,
        typer.Option("--rescan", help="Seconds between scans for new files.",
                     callback=at_least(0.1, MAX_POLL_S)),
    ] = 5.0,
    method: opt.Method = "agent",
    encoder: opt.Encoder = opt.DEFAULTS.encoder,
    fps: opt.Fps = opt.DEFAULTS.fps,
    params: opt.Params = None,
    preset: opt.Preset = None,
    channels: Channels = None,
    subtitles: Subtitles = None,
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    device: opt.Device = None,
    batch_size: opt.BatchSize = None,
) -> None:
    """Serve a page that searches every video under FOLDER...: type any query `find` takes,
    see the hits of the whole library as thumbnails ranked by score, open one in a player
    at its In and Out, and export the hits you pick as markers for your editing tool (FCPXML,
    FCP7 XML, OTIO, EDL), a CSV or clips with sound.

    Videos are indexed in the background, one at a time, with their progress on the page;
    files added while it runs are picked up. On an address that is not loopback, every
    request must carry an access token: it is generated at start and printed in the address
    to open.
    """
    from ..annotate.access import new_token
    from ..annotate.server import bind, host_names, is_loopback, run, url_of
    from ..channels import parse_channels
    from ..methods import build_method
    from ..serve import Indexer, Library, MethodSearcher, create_app
    from .find_cmd import _ground

    for folder in folders:
        if not folder.is_dir():
            raise UserError(f"{folder}: {'not a folder' if folder.exists() else 'no such folder'}")
    check_cache_root(cache_dir)
    config = opt.method_config(
        encoder=encoder, fps=fps, single=False, params=params, llm=llm, base_url=base_url,
        model=model, api_key=api_key, cache_dir=cache_dir, method=method, preset=preset,
        device=device, batch_size=batch_size,
    )  # fmt: skip
    parse_channels(channels)
    config.channels = channels
    config.subtitles = subtitles_on(subtitles, method, preset)
    grounder = build_method(method, config)
    def ground(video: Path, query: str):
        return _ground(grounder, video, query, None)[0]

    searcher = MethodSearcher(grounder, method, ground)
    sock = bind(host, port)  # a port in use stops here
    with sock:
        token = None if is_loopback(host) else new_token()
        library = Library(folders)
        web = create_app(library, searcher, allowed_hosts=host_names(host), token=token)
        indexer = Indexer(library, searcher, rescan).start()
        address = url_of(sock, host) + (f"?token={token}" if token else "")
        if token:
            typer.echo(f"serve: --host {host} is not loopback: requests need the access token "
                       "in this address", err=True)  # fmt: skip
        typer.echo(f"serve: open {address}  (Ctrl-C stops)")
        try:
            run(web, sock)
        finally:
            indexer.stop()
