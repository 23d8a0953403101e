package Kamado::Status::HTML;
use 5.024;
use strict;
use warnings;

use POSIX ();

# The status page (/ on --status-listen), like Apache's server-status:
# every value from a Kamado::Status snapshot goes through _h (request lines
# are what clients sent).

sub render {
    my ($class, $s, $refresh) = @_;
    my $r = $s->{requests};
    my @html = (
        '<!DOCTYPE html>',
        '<html lang="en"><head><meta charset="utf-8">',
        ($refresh ? '<meta http-equiv="refresh" content="' . _h($refresh) . '">' : ()),
        '<title>Kamado Status</title>',
        '<style>body{font-family:sans-serif;margin:1em}dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}'
            . 'dt{font-weight:bold}dd{margin:0}h2{margin:.6em 0 .3em}table{border-collapse:collapse;margin-bottom:1em}'
            . 'th,td{border:1px solid #bbb;padding:2px 6px;text-align:left}th{background:#eee}'
            . 'td.n{text-align:right;white-space:nowrap}td.req{font-family:monospace;max-width:40em;overflow-wrap:anywhere}</style>',
        '</head><body>',
        '<h1>Kamado Status</h1>',
        '<dl id="server">',
        _dt('Server version', "Kamado $s->{server}{version}"),
        _dt('Supervisor pid', $s->{server}{pid}),
        _dt('Started', POSIX::strftime('%Y-%m-%d %H:%M:%S %z', localtime $s->{server}{started})),
        _dt('Uptime', _duration($s->{server}{uptime})),
        _dt('Requests', $r->{total} . ' (' . join(', ', map { "$_ $r->{by_class}{$_}" } sort keys $r->{by_class}->%*) . ')'),
        _dt('Requests per second', sprintf('%.2f since start, %.2f in the last minute', $r->{per_second}, $r->{per_second_recent})),
        _dt('Bytes in / out', "$s->{bytes}{in} / $s->{bytes}{out}"),
        _dt('Workers', join(', ', map { "$s->{workers_by_state}{$_} $_" } grep { $s->{workers_by_state}{$_} } sort keys $s->{workers_by_state}->%*) || 'none'),
        '</dl>',
        '<h2>Workers</h2>',
        _table('workers', ['Pid', 'Generation', 'Pool', 'State', 'Request', 'Age (s)', 'Requests', 'Connections', 'Streams',
                'Private', 'Shared', 'Pss'],
            map { [$_->{pid}, $_->{generation}, $_->{pool}, $_->{state}, $_->{request},
                    defined $_->{age} ? sprintf('%.1f', $_->{age}) : '', $_->{requests}, $_->{connections}, $_->{streams},
                    map { _bytes($_) } @{ $_->{memory} }{qw(private shared pss)}] }
                sort { $a->{generation} <=> $b->{generation} || $a->{pid} <=> $b->{pid} } $s->{workers}->@*),
        '<h2>Generations</h2>',
        _table('generations', [qw(Generation Pid State Started Workers)],
            map { [$_->{number}, $_->{pid}, $_->{state}, POSIX::strftime('%H:%M:%S', localtime $_->{started}), $_->{workers}] }
                $s->{generations}->@*),
        '<h2>Pools</h2>',
        _table('pools', ['Pool', 'Queued connections'], map { [$_->{name}, $_->{queued}] } $s->{pools}->@*),
        ($s->{cgi_scripts} && $s->{cgi_scripts}->@* ? ('<h2>CGI scripts</h2>',
            _table('cgi-scripts', ['Script', 'Mode', 'Why'],
                map { [$_->{script}, $_->{mode} . ($_->{demoted} ? ' (demoted at run time)' : ''), $_->{reason}] } $s->{cgi_scripts}->@*))
            : ()),
        '<h2>Worker exits</h2>',
        _table('exits', ['Cause', 'Workers'], map { [$_, $s->{worker_exits}{$_}] } sort keys $s->{worker_exits}->%*),
        '<p>Also: <a href="status.json">status.json</a>, <a href="metrics">metrics</a>.</p>',
        '</body></html>', '');
    return join "\n", @html;
}

sub _h {
    my ($text) = @_;
    $text //= '';
    $text =~ s/([&<>"'])/'&#' . ord($1) . ';'/ge;
    # bytes a client sent that are not printable ASCII, shown as escapes
    $text =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge;
    return $text;
}

sub _dt { '<dt>' . _h($_[0]) . '</dt><dd>' . _h($_[1]) . '</dd>' }

sub _table {
    my ($id, $head, @rows) = @_;
    return join "\n", qq{<table id="$id">}, '<thead><tr>' . join('', map { '<th>' . _h($_) . '</th>' } @$head) . '</tr></thead>',
        '<tbody>',
        (map { my $row = $_; '<tr>' . join('', map { _td($head->[$_], $row->[$_]) } 0 .. $#$row) . '</tr>' } @rows),
        '</tbody></table>';
}

sub _td {
    my ($column, $value) = @_;
    my $class = $column eq 'Request' ? ' class="req"' : ($value // '') =~ /\A[\d.]+(?: [KMG]iB)?\z/ ? ' class="n"' : '';
    return "<td$class>" . _h($value) . '</td>';
}

sub _bytes {
    my ($n) = @_;
    return '' unless $n;
    my @unit = ('B', 'KiB', 'MiB', 'GiB');
    my $i = 0;
    ($n, $i) = ($n / 1024, $i + 1) while $n >= 1024 && $i < $#unit;
    return $i ? sprintf('%.1f %s', $n, $unit[$i]) : "$n B";
}

sub _duration {
    my ($s) = @_;
    my $d = int($s / 86400);
    return ($d ? "$d days " : '') . POSIX::strftime('%H:%M:%S', gmtime $s);
}

1;
__END__

=head1 NAME

Kamado::Status::HTML - the status page, like Apache's server-status

=head1 DESCRIPTION

C<render($snapshot, $refresh)> returns the page: the server's summary
(C<dl id="server">), then tables C<workers> (one row a worker), C<generations>,
C<pools>, C<cgi-scripts> (each CGI script's mode and why, when there
are CGI directories: L<Kamado::CGI::Auto>) and C<exits>. With C<$refresh> (seconds), a meta refresh.
Every value is HTML-escaped, and bytes outside printable ASCII are shown
as C<\xNN>: a request line is whatever a client sent.

=cut
