package Kamado::Check::Source;
use 5.024;
use strict;
use warnings;

use Cwd ();
use PPI;
use Kamado::CGI::Source;
use Kamado::Check::Probe;

# A CGI script and every file of the tree it pulls in, read with PPI: what
# the hazard families (Kamado::Check::*) look at. Files are followed as
# perl would find them while the script runs in its directory: `require`
# and `do` of a literal path (./lib.pl, ../x.pl, lib.pl through @INC),
# `use`/`require` of a module found in a `use lib` (or `push @INC`)
# directory inside the tree, and a path held in a variable given a
# literal once ($config = './config.pl'; do $config). A file named by an
# expression the reading cannot resolve is noted (dynamic), never guessed:
# its hazards cannot be seen. Files in the system's perl library (the
# @INC perl started with, Kamado's own included) are not read; every
# other file is the tree's.

# read(FILE, names => [[file, line, name]...], fast => 1) -> { script,
# files => [file...], dynamic => [[file, line, text]...], missing =>
# [[file, line, name]...] }; each file: { path, doc (PPI::Document),
# is_script, key (Source::file_key) }. NAMES: what the script's require
# and do name (the compile probe saw them); with fast, the script itself
# is not read with PPI (its code was looked at compiled), only the files
# it pulls in.
sub read {
    my ($class, $script, %a) = @_;
    my $path = Cwd::realpath($script) // $script;
    my ($dir) = $path =~ m{\A(.*)/[^/]*\z};
    my $self = { script => $path, dir => $dir, files => [], seen => {}, dynamic => [],
        missing => [], libs => [($a{libs} // [])->@*], fast => $a{fast} };
    bless $self, $class;
    $self->_add($path, 1);
    for my $n (($a{names} // [])->@*) {
        my $found = $self->_resolve($n->[2]);
        if (!defined $found) { push $self->{missing}->@*, $n unless $n->[2] =~ /\.pm\z/; next }
        $self->_add($found, 0) if $self->_inside($found);
    }
    # (a queue: each file read may name more)
    for (my $i = 0; $i < $self->{files}->@*; $i++) {
        $self->_follow($self->{files}[$i]);
    }
    return $self;
}

sub files   { $_[0]{files}->@* }
sub dynamic { $_[0]{dynamic}->@* }

# { path => key } of every file read: what tells that the verdict is stale.
sub file_keys {
    my ($self) = @_;
    return { map { ($_->{path} => $_->{key}) } $self->{files}->@* };
}

# (a file's PPI document, kept while the file is unchanged: the
# libraries that many scripts share are read once)
my %parsed;

sub _add {
    my ($self, $path, $is_script) = @_;
    return if $self->{seen}{$path}++;
    my $key = Kamado::CGI::Source::file_key($path);
    return if $key eq '';
    my $skip = $is_script && $self->{fast};
    my $p = $parsed{$path};
    undef $p if $p && ($p->{key} ne $key || (!$skip && !$p->{doc} && !$p->{error}));
    $p //= do {
        my $text = do { open my $fh, '<:raw', $path or return; local $/; <$fh> } // '';
        # (the code as the in-process modes compile it: cut at __END__/__DATA__)
        my ($code, $data) = Kamado::CGI::Source::split_marker($text);
        my $doc = $skip ? undef : PPI::Document->new(\$code, readonly => 1);
        %parsed = () if keys %parsed >= 500;
        $parsed{$path} = { key => $key, text => $code, data => $data, doc => $doc,
            error => $doc || $skip ? undef : PPI::Document->errstr };
    };
    push $self->{files}->@*, { path => $path, doc => $p->{doc}, text => $p->{text}, data => $p->{data},
        is_script => $is_script ? 1 : 0, key => $key, error => $p->{error} };
}

sub _inside { !is_system($_[1]) }

sub is_system { Kamado::Check::Probe::is_system(@_) }

# add(PATH): a file found another way (loaded while the probe compiled).
sub add {
    my ($self, $path) = @_;
    $path = Cwd::realpath($path) // return;
    my $n = $self->{files}->@*;
    $self->_add($path, 0);
    for (my $i = $n; $i < $self->{files}->@*; $i++) { $self->_follow($self->{files}[$i]) }
}

sub _follow {
    my ($self, $f) = @_;
    my $doc = $f->{doc} or return;
    my %literal;    # $name => the one string literal it is given
    for my $st (($doc->find('PPI::Statement') || [])->@*) {
        my @c = $st->schildren;
        next unless @c >= 3 && $c[0]->isa('PPI::Token::Symbol') && $c[1]->isa('PPI::Token::Operator')
            && $c[1]->content eq '=' && $c[2]->isa('PPI::Token::Quote');
        my $name = $c[0]->symbol;
        $literal{$name} = exists $literal{$name} ? undef : $c[2]->string;
    }
    # use lib / push @INC / unshift @INC with literal directories
    for my $inc (($doc->find('PPI::Statement::Include') || [])->@*) {
        next unless ($inc->module // '') eq 'lib';
        push $self->{libs}->@*, map { $self->_dir($f, $_) } _strings($inc);
    }
    for my $st (($doc->find('PPI::Statement') || [])->@*) {
        next unless $st->content =~ /\A\s*(?:push|unshift)\s*\(?\s*\@INC\b/;
        push $self->{libs}->@*, map { $self->_dir($f, $_) } _strings($st);
    }
    # modules of the tree's own (use Foo; require Foo)
    for my $inc (($doc->find('PPI::Statement::Include') || [])->@*) {
        my $module = $inc->module or next;
        next if $module eq 'lib' || $inc->type eq 'no' || $module !~ /\A\w+(?:::\w+)*\z/;
        (my $file = "$module.pm") =~ s{::}{/}g;
        for my $lib ($self->{libs}->@*) {
            my $path = Cwd::realpath("$lib/$file") // next;
            $self->_add($path, 0) if -f $path && $self->_inside($path);
            last;
        }
    }
    # require / do of files
    my $calls = $doc->find(sub { $_[1]->isa('PPI::Token::Word') && $_[1]->content =~ /\A(?:require|do)\z/ }) || [];
    for my $w (@$calls) {
        my $arg = $w->snext_sibling or next;
        $arg = $arg->schild(0) && $arg->schild(0)->schild(0) if $arg->isa('PPI::Structure::List');
        next unless $arg;
        next if $w->content eq 'do' && $arg->isa('PPI::Structure::Block');    # do { }
        next if $arg->isa('PPI::Token::Word') || $arg->isa('PPI::Token::Number');    # require Module / 5.006
        my $name;
        # (the argument must be the whole expression: "./" . $x is not a name)
        my $after = $arg->snext_sibling;
        my $whole = !$after || $after->content =~ /\A(?:;|,|or|and|\|\||&&|\/\/|if|unless)\z/;
        # (the script's own: the compile probe saw them, and resolves them)
        next if $f->{is_script};
        if ($whole && $arg->isa('PPI::Token::Quote') && !($arg->isa('PPI::Token::Quote::Double') && $arg->string =~ /[\$\@]/)) {
            $name = $arg->string;
        } elsif ($whole && $arg->isa('PPI::Token::Symbol') && defined $literal{ $arg->symbol }
            && $literal{ $arg->symbol } !~ /[\$\@]/) {
            $name = $literal{ $arg->symbol };
        } else {
            push $self->{dynamic}->@*, [$f->{path}, $w->line_number, $w->statement ? _short($w->statement->content) : $w->content];
            next;
        }
        my $path = $self->_resolve($name);
        if (!defined $path) {
            push $self->{missing}->@*, [$f->{path}, $w->line_number, $name];
            next;
        }
        $self->_add($path, 0) if $self->_inside($path);
    }
}

# A file NAME as perl finds it from the script's directory (the cwd of a
# CGI run): a path with a directory from there, a bare name through @INC
# (the tree's own lib directories first).
sub _resolve {
    my ($self, $name) = @_;
    if ($name =~ m{\A\.{0,2}/} ) {
        my $path = $name =~ m{\A/} ? $name : "$self->{dir}/$name";
        return -f $path ? Cwd::realpath($path) : undef;
    }
    for my $lib ($self->{libs}->@*, @INC) {
        next if ref $lib;
        return Cwd::realpath("$lib/$name") if -f "$lib/$name";
    }
    return undef;
}

sub _dir {
    my ($self, $f, $dir) = @_;
    return $dir if $dir =~ m{\A/};
    return "$self->{dir}/$dir";
}

sub _strings {
    my ($node) = @_;
    my $q = $node->find(sub { $_[1]->isa('PPI::Token::Quote') || $_[1]->isa('PPI::Token::QuoteLike::Words') }) || [];
    return map { $_->isa('PPI::Token::QuoteLike::Words') ? $_->literal : $_->string } @$q;
}

sub _short { my $t = shift; $t =~ s/\s+/ /g; length $t > 60 ? substr($t, 0, 57) . '...' : $t }

1;
__END__

=head1 NAME

Kamado::Check::Source - a CGI script and the files of its tree it pulls in, read with PPI

=head1 SYNOPSIS

    my $source = Kamado::Check::Source->read('/srv/cgi-bin/board.cgi', root => '/srv/cgi-bin');
    for my $file ($source->files) { ... $file->{doc} ... }

=cut
