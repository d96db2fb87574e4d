#!/bin/sh
# Install Memory Curator for the current user, from the unpacked archive this script sits in:
#   the app folder   -> ~/.local/opt/memory-curator
#   the command      -> ~/.local/bin/memory-curator (a link)
#   launcher, icons, metainfo -> ~/.local/share/{applications,icons/hicolor,metainfo}
# Nothing needs root. PREFIX=/some/where ./install.sh installs under another prefix;
# ./install.sh --uninstall removes what it put there (your vault is never touched).
set -eu

APP_ID=io.github.memorycurator.MemoryCurator
PREFIX="${PREFIX:-$HOME/.local}"
DEST="$PREFIX/opt/memory-curator"
HERE=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
SHARE="$PREFIX/share"
SIZES="16 32 48 64 128 256 512"

refresh_caches() {
    # Desktops pick up new launchers and icons without these, only later; ignore their absence.
    update-desktop-database -q "$SHARE/applications" 2>/dev/null || true
    # Refresh an icon cache only where one exists: creating one in a user's folder can hide icons that other
    # programs add later without refreshing it.
    if [ -f "$SHARE/icons/hicolor/icon-theme.cache" ]; then
        gtk-update-icon-cache -q -t -f "$SHARE/icons/hicolor" 2>/dev/null || true
    else
        touch "$SHARE/icons/hicolor" 2>/dev/null || true
    fi
}

uninstall() {
    rm -rf "$DEST"
    rm -f "$PREFIX/bin/memory-curator" "$SHARE/applications/$APP_ID.desktop" \
        "$SHARE/metainfo/$APP_ID.metainfo.xml" "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
    for size in $SIZES; do
        rm -f "$SHARE/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
    done
    refresh_caches
    echo "Memory Curator removed from $PREFIX. Your vault and settings are kept."
}

case "${1:-}" in
    --uninstall) uninstall; exit 0 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    "") ;;
    *) echo "Unknown option: $1 (use --uninstall or --help)" >&2; exit 2 ;;
esac

if [ ! -x "$HERE/memory-curator" ]; then
    echo "No memory-curator program beside this script: run install.sh from the unpacked archive." >&2
    exit 1
fi

if [ "$HERE" != "$DEST" ]; then
    rm -rf "$DEST"
    mkdir -p "$DEST"
    cp -R "$HERE/." "$DEST/"
fi

mkdir -p "$PREFIX/bin" "$SHARE/applications" "$SHARE/metainfo"
ln -sf "$DEST/memory-curator" "$PREFIX/bin/memory-curator"

# The launcher names the program by its full path: a desktop session's PATH often lacks ~/.local/bin.
sed -e "s|^Exec=memory-curator|Exec=\"$DEST/memory-curator\"|" \
    -e "s|^TryExec=memory-curator|TryExec=$DEST/memory-curator|" \
    "$HERE/share/applications/$APP_ID.desktop" > "$SHARE/applications/$APP_ID.desktop"
cp "$HERE/share/metainfo/$APP_ID.metainfo.xml" "$SHARE/metainfo/"
for dir in "$HERE"/share/icons/hicolor/*/apps; do
    rel=${dir#"$HERE/share/icons/hicolor/"}
    mkdir -p "$SHARE/icons/hicolor/$rel"
    cp "$dir"/* "$SHARE/icons/hicolor/$rel/"
done
refresh_caches

echo "Memory Curator installed in $DEST."
echo "Start it from your desktop's application menu, or run: $PREFIX/bin/memory-curator"
