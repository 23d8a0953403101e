package Kamado::Test::Status;
use 5.024;
use strict;
use warnings;

# A Kamado server with --status-listen, and clients of its status pages:
# the status port comes from free_port (released just before kamado binds
# it; losing it to another process fails loudly, "Can't listen").

use Exporter 'import';
use HTTP::Tiny;
use JSON::PP ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::Plackup qw(free_port);

our @EXPORT_OK = qw(status_server status_get status_json metrics parse_metrics wait_file_app);

# status_server(%start_server_options) -> the server, with ->{status_port};
# returns once the status listener answers.
sub status_server {
    my (%opt) = @_;
    my $port = free_port();
    my $server = start_server(%opt, args => ['--status-listen', "127.0.0.1:$port", ($opt{args} // [])->@*]);
    $server->{status_port} = $port;
    eventually(sub { status_get($server, '/status.json')->{status} == 200 }, 20)
        or die "the status listener did not answer:\n" . $server->log;
    return $server;
}

# GET (or another method) on the status listener: HTTP::Tiny's response.
sub status_get {
    my ($server, $path, $method) = @_;
    return HTTP::Tiny->new(timeout => 10)->request($method // 'GET', "http://127.0.0.1:$server->{status_port}$path");
}

sub status_json {
    my ($server) = @_;
    my $res = status_get($server, '/status.json');
    die "GET /status.json: $res->{status} $res->{content}" unless $res->{status} == 200;
    return JSON::PP->new->decode($res->{content});
}

# /metrics parsed line by line, strictly: (samples => {"name{labels}" =>
# value}, errors => [lines that break the format], types => {family => type}).
sub parse_metrics {
    my ($text) = @_;
    my (%samples, %types, %help, @errors);
    my $name_re = qr/[a-zA-Z_:][a-zA-Z0-9_:]*/;
    my $value_re = qr/-?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|NaN|\+Inf|-Inf)/;
    for my $line (split /\n/, $text) {
        if ($line =~ /^# HELP ($name_re) \S/) {
            push @errors, "second HELP: $line" if $help{$1}++;
        } elsif ($line =~ /^# TYPE ($name_re) (counter|gauge|histogram|summary|untyped)$/) {
            push @errors, "second TYPE: $line" if $types{$1};
            $types{$1} = $2;
        } elsif ($line =~ /^($name_re)(\{(?:$name_re="(?:[^"\\\n]|\\.)*"(?:,$name_re="(?:[^"\\\n]|\\.)*")*)?\})? ($value_re)$/) {
            my ($name, $labels, $value) = ($1, $2 // '', $3);
            my $family = $name;
            $family =~ s/_(?:bucket|sum|count)$// unless $types{$name};
            push @errors, "no TYPE before: $line" unless $types{$family} && $help{$family};
            push @errors, "counter not ending in _total: $line" if ($types{$family} // '') eq 'counter' && $name !~ /_total$/;
            push @errors, "repeated: $line" if exists $samples{"$name$labels"};
            $samples{"$name$labels"} = $value;
        } else {
            push @errors, "malformed: $line";
        }
    }
    return (samples => \%samples, errors => \@errors, types => \%types);
}

sub metrics {
    my ($server) = @_;
    my $res = status_get($server, '/metrics');
    die "GET /metrics: $res->{status}" unless $res->{status} == 200;
    return {parse_metrics($res->{content}), text => $res->{content}, type => $res->{headers}{'content-type'}};
}

# An app whose /block?NAME waits until the file NAME appears in $ENV{KT_DIR};
# /status/N answers status N; anything else 200.
sub wait_file_app {
    return <<'APP';
sub {
    my $env = shift;
    if ($env->{PATH_INFO} eq '/block') {
        my ($name) = $env->{QUERY_STRING} =~ /^(\w+)/;
        select undef, undef, undef, 0.01 until -e "$ENV{KT_DIR}/$name";
    }
    my ($status) = $env->{PATH_INFO} =~ m{^/status/(\d{3})$};
    [$status // 200, ['Content-Type' => 'text/plain'], ["$$\n"]];
}
APP
}

1;
